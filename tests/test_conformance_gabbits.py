"""conformance/upstream.py: upstream's gabbi files come from the pinned
release (wheel or sdist), checked against the sha256 list, cached, and
fetched again only when the cache is incomplete or changed."""
import hashlib
import importlib.util
import io
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _load(name):
    spec = importlib.util.spec_from_file_location(
        f"conformance_{name}", ROOT / "conformance" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


upstream = _load("upstream")

FILES = {
    "alpha.yaml": b"tests:\n- name: alpha\n  GET: /\n",
    "beta.yaml": b"tests:\n- name: beta\n  GET: /traits\n",
}
PREFIX = "placement/tests/functional/gabbits/"


def _manifest(tmp_path, files=FILES):
    path = tmp_path / "list.sha256"
    path.write_text("# a comment\n\n" + "".join(
        f"{hashlib.sha256(data).hexdigest()}  {name}\n"
        for name, data in files.items()))
    return path


def _wheel(path, files):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in files.items():
            zf.writestr(name, data)
    return str(path)


def _sdist(path, files):
    with tarfile.open(path, "w:gz") as tf:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tf.addfile(info, io.BytesIO(data))
    return str(path)


def _release(files=FILES):
    """The archive members: the listed files, one the list leaves out, a
    file in a subfolder and a Python module."""
    members = {PREFIX + name: data for name, data in files.items()}
    members[PREFIX + "left-out.yaml"] = b"tests: []\n"
    members[PREFIX + "nested/alpha.yaml"] = b"not this one\n"
    members["placement/tests/functional/fixtures/gabbits.py"] = b"x = 1\n"
    return members


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_extract_writes_exactly_the_listed_files(tmp_path, kind):
    wanted = upstream.read_manifest(_manifest(tmp_path))
    if kind == "wheel":
        archive = _wheel(tmp_path / "openstack_placement-16.0.0-py3-none-any.whl", _release())
    else:
        members = {f"openstack_placement-16.0.0/{n}": d for n, d in _release().items()}
        archive = _sdist(tmp_path / "openstack_placement-16.0.0.tar.gz", members)
    dest = tmp_path / "out"
    dest.mkdir()
    upstream.extract(archive, wanted, str(dest))
    assert {p.name: p.read_bytes() for p in dest.iterdir()} == FILES
    assert upstream.problems_in(str(dest), wanted) == []


def test_extract_refuses_a_changed_or_missing_file(tmp_path):
    wanted = upstream.read_manifest(_manifest(tmp_path))
    changed = dict(FILES, **{"beta.yaml": b"tests: []\n"})
    archive = _wheel(tmp_path / "changed.whl", _release(changed))
    dest = tmp_path / "out"
    dest.mkdir()
    with pytest.raises(upstream.FetchError, match="beta.yaml in changed.whl differs"):
        upstream.extract(archive, wanted, str(dest))
    archive = _wheel(tmp_path / "short.whl", _release({"alpha.yaml": FILES["alpha.yaml"]}))
    with pytest.raises(upstream.FetchError, match="beta.yaml is not in short.whl"):
        upstream.extract(archive, wanted, str(dest))
    assert list(dest.iterdir()) == []


def test_ensure_fetches_once_then_reuses_the_cache(tmp_path):
    manifest = _manifest(tmp_path)
    calls = []

    def fetch(into):
        calls.append(into)
        return _wheel(Path(into) / "openstack_placement-16.0.0-py3-none-any.whl", _release())

    root = tmp_path / "cache"
    first = upstream.ensure(str(root), fetch=fetch, manifest=manifest)
    assert Path(first) == root / f"gabbits-{upstream.VERSION}"
    assert sorted(p.name for p in Path(first).iterdir()) == sorted(FILES)
    assert upstream.ensure(str(root), fetch=fetch, manifest=manifest) == first
    assert len(calls) == 1
    # only the finished directory is left in the cache
    assert [p.name for p in root.iterdir()] == [f"gabbits-{upstream.VERSION}"]

    # A cached file that changed (or went missing) is fetched again.
    (Path(first) / "alpha.yaml").write_bytes(b"edited\n")
    upstream.ensure(str(root), fetch=fetch, manifest=manifest)
    assert len(calls) == 2
    assert (Path(first) / "alpha.yaml").read_bytes() == FILES["alpha.yaml"]


def test_a_failed_fetch_leaves_nothing_behind(tmp_path):
    def fetch(into):
        raise upstream.FetchError("pip download openstack-placement==16.0.0 failed (rc=1): offline")

    root = tmp_path / "cache"
    with pytest.raises(upstream.FetchError, match="offline"):
        upstream.ensure(str(root), fetch=fetch, manifest=_manifest(tmp_path))
    assert list(root.iterdir()) == []


def test_a_bad_list_line_is_named(tmp_path):
    path = tmp_path / "list.sha256"
    path.write_text("abc alpha.yaml\n")
    with pytest.raises(upstream.FetchError, match="list.sha256:1: expected"):
        upstream.read_manifest(path)


def test_the_pinned_list_names_all_79_gabbit_files_of_the_release():
    wanted = upstream.read_manifest()
    assert len(wanted) == 79
    assert all(name.endswith(".yaml") for name in wanted)
    assert len(set(wanted.values())) == 79
