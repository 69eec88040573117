"""The generated OpenAPI document and the self-hosted Swagger UI."""
import json
import re

import pytest
from django.test import Client
from drf_spectacular.validation import validate_schema

pytestmark = pytest.mark.django_db

CATALOG_PATHS = ("/resource_classes", "/resource_classes/{name}", "/traits", "/traits/{name}")
HTTP_METHODS = {"get", "put", "post", "delete", "patch"}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    with django_db_blocker.unblock():
        response = Client().get("/api/schema/?format=json")
    assert response.status_code == 200
    assert "json" in response["content-type"]
    return json.loads(response.content)


def operations(schema, path):
    return {m: op for m, op in schema["paths"][path].items() if m in HTTP_METHODS}


def test_catalog_part_of_schema_is_valid_openapi(schema):
    catalog = dict(schema, paths={p: schema["paths"][p] for p in CATALOG_PATHS})
    validate_schema(catalog)  # raises on an invalid document
    assert schema["openapi"].startswith("3.")
    assert schema["info"]["title"] == "Placement API"


def invalid_paths(schema):
    bad = []
    for path, item in schema["paths"].items():
        try:
            validate_schema(dict(schema, paths={path: item}))
        except Exception as exc:  # jsonschema.ValidationError
            bad.append(f"{path}: {str(exc).splitlines()[0][:200]}")
    return bad


def test_whole_schema_is_valid_openapi(schema):
    assert schema["openapi"] == "3.1.0"
    assert invalid_paths(schema) == []
    validate_schema(schema)


def test_schema_needs_no_token():
    response = Client().get("/api/schema/")
    assert response.status_code == 200
    assert response.content.startswith(b"openapi:")  # YAML without ?format=json


def test_catalog_routes_are_all_there(schema):
    for path in CATALOG_PATHS:
        assert path in schema["paths"], path
    assert set(operations(schema, "/resource_classes")) == {"get", "post"}
    assert set(operations(schema, "/resource_classes/{name}")) == {"get", "put", "delete"}
    assert set(operations(schema, "/traits")) == {"get"}
    assert set(operations(schema, "/traits/{name}")) == {"get", "put", "delete"}


def test_operation_ids_are_unique(schema):
    ids = [
        op["operationId"]
        for path in schema["paths"]
        for op in operations(schema, path).values()
    ]
    assert len(ids) == len(set(ids))
    assert not any(re.search(r"_\d+$", op_id) for op_id in ids if "trait" in op_id)


def resolve(schema, part):
    """Follow a local $ref (#/components/...) to the schema it names."""
    while "$ref" in part:
        node = schema
        for key in part["$ref"].lstrip("#/").split("/"):
            node = node[key]
        part = node
    return part


def body_schema(part):
    return part["content"]["application/json"]["schema"]


def test_request_bodies_are_described(schema):
    for path, method in (("/resource_classes", "post"),):
        body = resolve(schema, body_schema(schema["paths"][path][method]["requestBody"]))
        assert body["properties"]["name"]["pattern"] == "^CUSTOM_[A-Z0-9_]+$"
        assert body["properties"]["name"]["maxLength"] == 255
        assert body["additionalProperties"] is False
    # PUT /traits/{name} takes no body.
    assert "requestBody" not in schema["paths"]["/traits/{name}"]["put"]


def test_response_bodies_are_described(schema):
    listed = resolve(schema, body_schema(
        schema["paths"]["/resource_classes"]["get"]["responses"]["200"]))
    item = listed["properties"]["resource_classes"]["items"]
    assert set(item["properties"]) == {"name", "links"}
    shown = resolve(schema, body_schema(
        schema["paths"]["/resource_classes/{name}"]["get"]["responses"]["200"]))
    assert set(shown["properties"]) == {"name", "links"}
    traits = resolve(schema, body_schema(schema["paths"]["/traits"]["get"]["responses"]["200"]))
    assert traits["properties"]["traits"]["items"]["type"] == "string"


def test_every_catalog_operation_documents_errors(schema):
    for path in CATALOG_PATHS:
        for method, op in operations(schema, path).items():
            responses = op["responses"]
            assert op.get("summary"), (path, method)
            assert "403" in responses, (path, method)
            # 414 comes from the HTTP server in front, in its own format.
            errors = [code for code in responses
                      if code.startswith("4") and code not in ("414", "415")]
            for code in errors:
                body = body_schema(responses[code])
                # 401 may also come from keystonemiddleware, in its own shape.
                error = resolve(schema, body.get("oneOf", [body])[0])
                assert "errors" in error["properties"], (path, method, code)


def test_every_declared_error_answer_has_the_error_body(schema):
    missing = []
    for path, item in schema["paths"].items():
        if not path.startswith("/api/"):
            for method, op in operations(schema, path).items():
                for code, response in op["responses"].items():
                    if code.startswith("4") and "content" not in response:
                        missing.append(f"{method.upper()} {path} {code}")
    assert missing == []


def test_trait_list_query_parameters(schema):
    params = {p["name"]: p for p in schema["paths"]["/traits"]["get"]["parameters"]}
    assert set(params) >= {"name", "associated"}
    assert params["associated"]["in"] == "query"
    assert sorted(params["associated"]["schema"]["enum"]) == ["false", "true"]


def test_docs_page_uses_no_cdn():
    response = Client().get("/api/docs/")
    assert response.status_code == 200
    page = response.content.decode()
    assert "cdn." not in page and "unpkg" not in page and "jsdelivr" not in page
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert any(a.endswith("swagger-ui-bundle.js") for a in assets)
    for asset in assets:
        assert asset.startswith("/static/"), asset
        served = Client().get(asset)
        assert served.status_code == 200, asset
        assert b"".join(served.streaming_content)


@pytest.mark.parametrize("method", ["options", "post", "put", "delete", "patch"])
@pytest.mark.parametrize("path", ["/api/docs/", "/api/schema/"])
def test_docs_and_schema_answer_other_methods_without_a_500(method, path):
    response = getattr(Client(raise_request_exception=False), method)(path)
    if (path, method) == ("/api/schema/", "options"):
        assert response.status_code == 200  # DRF's metadata, rendered as JSON
    else:
        assert response.status_code == 405
