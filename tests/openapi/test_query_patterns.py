"""The OpenAPI document states the forms the server enforces on the
request-group parameters of GET /allocation_candidates and
GET /resource_providers (and the suffixed ones), and states them exactly:

- every value the server takes matches its pattern (a stricter pattern
  would make a fuzzer's "this must be refused" cases wrong);
- every value that matches is taken, unless it is refused for a reason no
  pattern can state (the documented exceptions: unknown names, amount 0,
  a class named twice, a trait both required and forbidden).

Checked over the API with chosen spellings and over the parsers with many
generated ones.
"""
import random
import re
from urllib.parse import quote

import pytest

from placement_core import errors, querystring
from placement_core.querystring import PATTERNS, PROVIDER_LIST_PATTERNS
from placement_core.uuids import UUID_FORMAT_SPELLING
from tests.factories import InventoryFactory, ResourceProviderFactory, resource_class

pytestmark = pytest.mark.django_db

AGG = "5a1b2c3d-4e5f-4071-8293-a4b5c6d7e8f9"
AGG_HEX = AGG.replace("-", "")
ARABIC_ONE = "\u0661"  # int() reads it as 1, and so does the pattern's \d
NBSP = "\u00a0"  # str.strip() and \s both take it as a space


def _param(document, path, name):
    return next(p for p in document["paths"][path]["get"]["parameters"]
                if p["in"] == "query" and p["name"] == name)


def _pattern(document, path, name):
    schema = _param(document, path, name)["schema"]
    return (schema.get("items") or schema)["pattern"]


def _matches(pattern, value):
    # As jsonschema (and Schemathesis) apply a pattern: re.search.
    return re.search(pattern, value) is not None


def test_the_document_carries_the_grammars_patterns(document):
    for name in ("resources", "required", "member_of", "in_tree", "root_required",
                 "same_subtree"):
        assert _pattern(document, "/allocation_candidates", name) == PATTERNS[name], name
    assert _pattern(document, "/resource_providers", "member_of") == PATTERNS["member_of"]
    for name in ("resources", "required"):
        assert _pattern(document, "/resource_providers", name) == PROVIDER_LIST_PATTERNS[name]
    # Repeatable on the provider list: each value has the form.
    assert _param(document, "/resource_providers", "required")["schema"]["type"] == "array"
    for name in ("uuid", "in_tree"):
        assert _pattern(document, "/resource_providers", name) == f"^{UUID_FORMAT_SPELLING}$"
    operation = document["paths"]["/allocation_candidates"]["get"]
    suffixed = operation["x-suffixed-parameters"]
    assert suffixed["^resources[a-zA-Z0-9_-]{1,64}$"]["pattern"] == PATTERNS["resources"]
    assert suffixed["^required[a-zA-Z0-9_-]{1,64}$"]["pattern"] == PATTERNS["required"]
    assert "resources1" in operation["description"]


# -- Over the API: spellings the server takes match, ones it refuses do not -----

TAKEN = {
    "resources": ["VCPU:1", "VCPU:1,DISK_GB:10", "VCPU: +1 ,DISK_GB:1_0",
                  f"VCPU:{ARABIC_ONE}", f"VCPU:1{NBSP}", "VCPU:99999999999999999999"],
    "required": ["HW_CPU_X86_AVX", " HW_CPU_X86_AVX , !CUSTOM_GOLD", "!!CUSTOM_GOLD",
                 "in:HW_CPU_X86_AVX,CUSTOM_GOLD", "in: CUSTOM_GOLD ,HW_CPU_X86_AVX"],
    "member_of": [AGG, AGG.upper(), AGG_HEX, "{" + AGG + "}", "urn:uuid:" + AGG,
                  "in:" + AGG + "," + AGG_HEX, "!" + "5" * 32, "!in:" + "5" * 32],
}
REFUSED = {
    "resources": ["", "VCPU", "VCPU:", "VCPU:1.0", "VCPU:0x1", "VCPU :1", " VCPU:1",
                  "VCPU:1,", "VCPU:1:2", "vcpu:1", "VCPU:-1", "VCPU:1__0"],
    "required": ["", ",", "HW_CPU_X86_AVX,", "in:", "in:!CUSTOM_GOLD", " in:CUSTOM_GOLD",
                 "hw_cpu_x86_avx", "!", "! CUSTOM_GOLD", "in:CUSTOM_GOLD,,HW_CPU_X86_AVX"],
    "member_of": ["", "in:", "!!" + AGG, AGG + "," + AGG, "in:" + AGG + ",", "0x" + "5" * 30,
                  " " + AGG, AGG + " ", "not-a-uuid"],
}


@pytest.fixture
def cloud(api):
    rp = ResourceProviderFactory()
    InventoryFactory(resource_provider=rp, resource_class=resource_class("VCPU"), total=8)
    InventoryFactory(resource_provider=rp, resource_class=resource_class("DISK_GB"), total=100)
    assert api.put("/traits/CUSTOM_GOLD", mv="1.39").status_code == 201
    response = api.put(f"/resource_providers/{rp.uuid}/traits", mv="1.39", json={
        "traits": ["HW_CPU_X86_AVX", "CUSTOM_GOLD"], "resource_provider_generation": 0})
    assert response.status_code == 200, response.content
    response = api.put(f"/resource_providers/{rp.uuid}/aggregates", mv="1.39", json={
        "aggregates": [AGG, "5" * 32], "resource_provider_generation": 1})
    assert response.status_code == 200, response.content
    return rp


def _get(api, path, name, value):
    if path == "/allocation_candidates" and name != "resources":
        query = f"resources=VCPU:1&{name}={quote(value)}"
    else:
        query = f"{name}={quote(value)}"
    return api.get(f"{path}?{query}", mv="1.39")


@pytest.mark.parametrize("path", ["/allocation_candidates", "/resource_providers"])
@pytest.mark.parametrize("name", sorted(TAKEN))
def test_what_the_server_takes_matches(api, cloud, document, path, name):
    pattern = _pattern(document, path, name)
    for value in TAKEN[name]:
        response = _get(api, path, name, value)
        assert response.status_code == 200, (value, response.content)
        assert _matches(pattern, value), value


# Refused on the provider list for their names alone (unknown there): an
# unknown in_tree provider answers an empty list before they are looked up.
NAMES_ONLY = {"resources": {"vcpu:1", " VCPU:1", "VCPU :1"},
              "required": {"hw_cpu_x86_avx", " in:CUSTOM_GOLD", "! CUSTOM_GOLD"}}
# Refused for their form, yet matching the provider list's looser patterns
# (its note names these: an empty name, '!' inside in:).
LOOSER_ON_THE_LIST = {"required": {"!", "in:", "in:!CUSTOM_GOLD"}}


@pytest.mark.parametrize("path", ["/allocation_candidates", "/resource_providers"])
@pytest.mark.parametrize("name", sorted(REFUSED))
def test_what_the_server_refuses_for_its_form_does_not_match(api, cloud, document, path,
                                                             name):
    pattern = _pattern(document, path, name)
    for value in REFUSED[name]:
        response = _get(api, path, name, value)
        assert response.status_code == 400, (value, response.content)
        if path == "/resource_providers" and (value in NAMES_ONLY.get(name, ())
                                              or value in LOOSER_ON_THE_LIST.get(name, ())):
            assert _matches(pattern, value), value
        else:
            assert not _matches(pattern, value), value


@pytest.mark.parametrize("name", sorted(NAMES_ONLY))
def test_the_provider_list_answers_names_of_any_spelling_after_an_empty_filter(
        api, cloud, document, name):
    # The fuzzer's finding: such a value, refused by the old pattern, got a
    # 200 (as from upstream) beside an in_tree provider that does not exist.
    pattern = _pattern(document, "/resource_providers", name)
    for value in NAMES_ONLY[name]:
        query = f"in_tree=5a1b2c3d-4e5f-4071-8293-000000000000&{name}={quote(value)}"
        response = api.get(f"/resource_providers?{query}", mv="1.39")
        assert response.status_code == 200, (value, response.content)
        assert response.json() == {"resource_providers": []}
        assert _matches(pattern, value), value
    for value in LOOSER_ON_THE_LIST.get(name, ()):
        query = f"in_tree=5a1b2c3d-4e5f-4071-8293-000000000000&{name}={quote(value)}"
        assert api.get(f"/resource_providers?{query}", mv="1.39").status_code == 400, value


def test_root_required_and_same_subtree(api, cloud):
    for value, status in (("HW_CPU_X86_AVX", 200), (" !CUSTOM_SILVER ,HW_CPU_X86_AVX", 400),
                          ("in:HW_CPU_X86_AVX", 400), ("HW_CPU_X86_AVX,", 400)):
        response = _get(api, "/allocation_candidates", "root_required", value)
        # CUSTOM_SILVER is of the form but unknown: refused, and matching.
        matches = _matches(PATTERNS["root_required"], value)
        assert matches == (status == 200 or "SILVER" in value), value
        assert response.status_code == status, (value, response.content)
    response = api.get("/allocation_candidates?resources_A=VCPU:1&required_B=CUSTOM_GOLD"
                       f"&same_subtree={quote(' _A, _B ')}&group_policy=none", mv="1.39")
    assert response.status_code == 200, response.content
    assert _matches(PATTERNS["same_subtree"], " _A, _B ")


# -- Over the parsers: many generated spellings ---------------------------------

# Allowed to match yet be refused: what no pattern can say.
DOCUMENTED = ("requires amount >= 1", "more than once", "Conflicting")

_NAMES = ["VCPU", "DISK_GB", "CUSTOM_A", "vcpu", "A-B", "X.Y"]
_UUIDS = [AGG, AGG_HEX, AGG.upper(), "{" + AGG + "}", "urn:uuid:" + AGG, "uuid:" + AGG_HEX,
          "0x" + AGG_HEX[2:], AGG[:-1], AGG_HEX + "0", "-" + AGG + "-", "{{" + AGG + "}"]
_TOKENS = {
    "resources": _NAMES + ["VCPU:", "DISK_GB:", "CUSTOM_A:", "vcpu:", ":", ",", ",", "1",
                           "1", "0", "12", "+", "-", "_", " ", "\t", NBSP, ARABIC_ONE,
                           "1.5", "x"],
    "required": _NAMES + [",", ",", "!", "!", "in:", " ", "\t", NBSP, ":", ""],
    "root_required": _NAMES + [",", ",", "!", "in:", " ", NBSP, ""],
    "member_of": _UUIDS + ["!", "in:", ",", " ", "", "x"],
    "in_tree": _UUIDS + [" ", "\t", NBSP, "x"],
    "same_subtree": ["_A", "1", "a-b", "x" * 64, "y" * 65, ",", ",", " ", "!", ".", ""],
}


_AMOUNT_TOKENS = ["1", "1", "0", "12", "+", "-", "_", " ", NBSP, ARABIC_ONE, ".5", "x", ":"]


def _generate(rng, name, tokens):
    if name == "resources" and rng.random() < 0.7:
        # Lists of CLASS:AMOUNT items, now and then with one token slipped in.
        value = ",".join(
            rng.choice(_NAMES) + ":" + "".join(rng.choice(_AMOUNT_TOKENS)
                                                 for _ in range(rng.randint(1, 3)))
            for _ in range(rng.randint(1, 3)))
        if rng.random() < 0.3:
            at = rng.randint(0, len(value))
            value = value[:at] + rng.choice(tokens) + value[at:]
        return value
    return "".join(rng.choice(tokens) for _ in range(rng.randint(1, 7)))


def _taken(name, value):
    """None when the grammar takes ``value`` (names of the NAME form counted as
    known ones), else the refusal's text."""
    mv = (1, 39)
    try:
        if name == "resources":
            names = querystring.parse_resources(value)
        elif name == "required":
            names = querystring.parse_required([value], mv).names()
        elif name == "root_required":
            required, forbidden = querystring._parse_root_required([value], mv)
            names = required | forbidden
        elif name == "member_of":
            querystring.parse_member_of([value], mv)
            names = ()
        elif name == "in_tree":
            querystring.parse_in_tree(value)
            names = ()
        else:
            names = {s for group in querystring._parse_same_subtree([value]) for s in group}
            known = [s for s in names if re.fullmatch(querystring.SUFFIX, s)]
            return None if len(known) == len(names) else "unknown suffix"
    except errors.BadRequest as exc:
        return str(exc.detail)
    unknown = [n for n in names if not re.fullmatch(querystring.NAME, n)]
    return f"No such name: {unknown}" if unknown else None


@pytest.mark.parametrize("name", sorted(_TOKENS))
def test_generated_values_match_exactly_what_the_grammar_takes(name):
    rng = random.Random(f"patterns-{name}")
    tokens = _TOKENS[name]
    pattern = PATTERNS[name]
    taken = 0
    for _ in range(20_000):
        value = _generate(rng, name, tokens)
        refusal = _taken(name, value)
        matches = _matches(pattern, value)
        if refusal is None:
            taken += 1
            assert matches, f"the server takes {value!r}, the pattern does not"
        elif matches:
            assert any(reason in refusal for reason in DOCUMENTED), (value, refusal)
    assert taken > 500, taken  # the generator reaches the accepted forms


@pytest.mark.parametrize("name", sorted(PROVIDER_LIST_PATTERNS))
def test_the_provider_lists_patterns_match_every_value_the_grammar_takes(name):
    # Names of any spelling: the list may answer before looking them up.
    rng = random.Random(f"list-patterns-{name}")
    tokens = _TOKENS[name]
    taken = 0
    for _ in range(20_000):
        value = _generate(rng, name, tokens)
        refusal = _taken(name, value)
        if refusal is None or refusal.startswith("No such name"):
            taken += 1
            assert _matches(PROVIDER_LIST_PATTERNS[name], value), value
    assert taken > 1000, taken


def test_the_provider_lists_uuids_match_exactly_what_format_uuid_takes():
    from placement_core.api import _is_uuid_like

    rng = random.Random("format-uuid")
    tokens = _TOKENS["member_of"] + ["{", "}", "-", "-", "urn:uuid:", "urn:", "uuid:", "F"]
    pattern = f"^{UUID_FORMAT_SPELLING}$"
    taken = 0
    for _ in range(50_000):
        value = "".join(rng.choice(tokens) for _ in range(rng.randint(1, 5)))
        taken += _is_uuid_like(value)
        assert _is_uuid_like(value) == _matches(pattern, value.rstrip("\n")), value
    assert taken > 500, taken
