"""The OpenAPI document as a client generator and a fuzzer read it: valid
OpenAPI 3.1 with every embedded schema valid JSON Schema 2020-12, a token
scheme, the microversion header and a description on every operation,
required bodies, and Placement's error body for every error answer."""
import json

import jsonschema
import pytest

pytestmark = pytest.mark.django_db

HTTP_METHODS = {"get", "put", "post", "delete", "patch"}


def _schemas(node):
    """Every JSON Schema embedded in the document."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "schema" and isinstance(value, dict):
                yield value
            yield from _schemas(value)
    elif isinstance(node, list):
        for value in node:
            yield from _schemas(value)


def _operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in HTTP_METHODS:
                yield path, method, operation


def test_every_embedded_schema_is_valid_2020_12(document):
    embedded = list(_schemas(document)) + list(document["components"]["schemas"].values())
    assert len(embedded) > 50
    for schema in embedded:
        jsonschema.Draft202012Validator.check_schema(schema)
    assert '"exclusiveMinimum": true' not in json.dumps(document)


def test_token_scheme_and_version_header_on_every_operation(document):
    assert document["components"]["securitySchemes"]["token"]["name"] == "X-Auth-Token"
    assert document["security"] == [{"token": []}]
    for path, method, operation in _operations(document):
        names = [p["name"] for p in operation.get("parameters", []) if p["in"] == "header"]
        assert "OpenStack-API-Version" in names, (path, method)


def test_every_operation_has_a_real_description(document):
    for path, method, operation in _operations(document):
        text = operation.get("description") or ""
        assert text and text != "Base class for every Placement endpoint.", (path, method)
        assert not text.startswith("/"), (path, method)


def test_bodies_are_required_and_errors_documented(document):
    for path, method, operation in _operations(document):
        responses = operation["responses"]
        if path != "/":
            assert "401" in responses, (path, method)
        if "requestBody" in operation:
            optional = (path, method) == ("/resource_classes/{name}", "put")  # none from 1.7
            assert operation["requestBody"]["required"] is not optional, (path, method)
            assert "415" in responses, (path, method)
        for status, response in responses.items():
            # 414 comes from the HTTP server in front (tests/openapi/test_uri_too_long.py).
            if status.startswith("4") and status != "414":
                schema = response["content"]["application/json"]["schema"]
                refs = [s.get("$ref") for s in schema.get("oneOf", [schema])]
                assert "#/components/schemas/Error" in refs or "errors" in (
                    schema.get("properties") or {}), (path, method, status)


def test_path_parameters_carry_the_servers_patterns(document):
    item = document["paths"]["/resource_providers/{uuid}"]["get"]
    uuid = next(p for p in item["parameters"] if p["name"] == "uuid")
    assert "pattern" in uuid["schema"]
    put_name = next(p for p in document["paths"]["/traits/{name}"]["put"]["parameters"]
                    if p["name"] == "name")
    assert put_name["schema"]["pattern"] == "^CUSTOM_[A-Z0-9_]+$"


def test_limit_is_an_integer_and_tags_are_spelled_one_way(document):
    limit = next(p for p in document["paths"]["/allocation_candidates"]["get"]["parameters"]
                 if p["name"] == "limit")
    assert limit["schema"] == {"type": "integer", "minimum": 1, "maximum": 2147483647}
    tags = {t for _, _, op in _operations(document) for t in op.get("tags", [])}
    assert not any("_" in t for t in tags), tags


def test_bodies_are_named_components(document):
    names = set(document["components"]["schemas"])
    assert len([n for n in names if n.endswith("Response")]) >= 20
    assert len([n for n in names if n.endswith("Request")]) >= 8
    op = document["paths"]["/resource_providers"]["get"]
    ref = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"]
    assert ref.startswith("#/components/schemas/") and ref.endswith("Response")


def test_every_201_names_its_location(document):
    created = [(path, method, op["responses"]["201"]) for path, method, op in
               _operations(document) if "201" in op["responses"]]
    assert len(created) >= 4
    for path, method, response in created:
        assert "Location" in response.get("headers", {}), (path, method)


def _query(document, path, name):
    return next(p["schema"] for p in document["paths"][path]["get"]["parameters"]
                if p["in"] == "query" and p["name"] == name)


def test_query_parameters_carry_what_the_server_checks(document):
    # GET /resource_providers?uuid= is checked as a uuid (braces and urn:uuid: allowed).
    assert "(?:[0-9a-fA-F]-*){32}" in _query(document, "/resource_providers", "uuid")["pattern"]
    # group_policy is one of two words.
    assert _query(document, "/allocation_candidates", "group_policy")["enum"] == [
        "none", "isolate"]
    # /usages: external ids of 1 to 255 characters.
    for name in ("project_id", "user_id", "consumer_type"):
        schema = _query(document, "/usages", name)
        assert (schema["minLength"], schema["maxLength"]) == (1, 255), name
    # The candidates' in_tree is read with the spaces around it stripped (as upstream).
    assert _query(document, "/allocation_candidates", "in_tree")["pattern"].startswith(r"^\s*")
