"""benchmarks/wire_snapshot.py: what it normalises (request ids and
timestamps, nothing else) and that --compare sees a planted difference."""
import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("wire_snapshot",
                                               ROOT / "benchmarks" / "wire_snapshot.py")
wire_snapshot = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(wire_snapshot)


def test_only_request_ids_and_timestamps_are_normalised():
    body = ('{"request_id": "req-0a1b2c3d-1111-4222-8333-444455556666", '
            '"created_at": "2026-11-27T03:05:17.123456+00:00", "at": "2026-11-27 03:05:17", '
            '"uuid": "0a1b2c3d-1111-4222-8333-444455556666", "generation": 3}')
    assert wire_snapshot.normalise(body) == (
        '{"request_id": "req-<id>", "created_at": "<date>", "at": "<date>", '
        '"uuid": "0a1b2c3d-1111-4222-8333-444455556666", "generation": 3}')


def _answers(tmp_path, name, bodies):
    path = tmp_path / name
    path.write_text(json.dumps([
        {"request": f"GET /{i}", "label": str(i), "status": 200,
         "content_type": "application/json", "body": body} for i, body in enumerate(bodies)]))
    return str(path)


def test_compare_counts_identical_answers_and_names_a_difference(tmp_path, capsys):
    before = _answers(tmp_path, "before.json", ["{}", '{"a": 1}', "[]"])
    same = _answers(tmp_path, "same.json", ["{}", '{"a": 1}', "[]"])
    planted = _answers(tmp_path, "planted.json", ["{}", '{"a": 2}', "[]"])
    assert wire_snapshot.compare(before, same) == 0
    assert "3 of 3 answers identical" in capsys.readouterr().out
    assert wire_snapshot.compare(before, planted) == 1
    out = capsys.readouterr().out
    assert "DIFFERS: 1: GET /1" in out and "2 of 3 answers identical" in out


def test_the_list_is_long_enough():
    class Fake:
        def send(self, method, path, **kwargs):
            if path.startswith("/resource_providers?") or path == "/resource_providers":
                return 200, "application/json", json.dumps({"resource_providers": [
                    {"uuid": f"{i}" * 8} for i in range(3)]})
            if path.endswith("/allocations"):
                return 200, "application/json", json.dumps({"allocations": {"c": {}}})
            return 200, "application/json", json.dumps({"aggregates": ["a"]})

    requests = wire_snapshot.requests_for(Fake())
    assert len(requests) >= 117
    versions = {kwargs.get("mv") for label, _, path, kwargs in requests
                if path.startswith("/allocation_candidates")}
    assert set(wire_snapshot.CANDIDATE_VERSIONS) <= versions
