"""A query string longer than the HTTP server in front takes (gunicorn: a
request line of 4094 bytes) is answered 414 by that server, in HTML, before
Placement sees it. The fuzzer found that answer undocumented: every
operation with query parameters documents it as what it is."""

import pytest

pytestmark = pytest.mark.django_db


def test_every_operation_with_a_query_documents_414(document):
    with_query = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            has_query = any(p["in"] == "query" for p in operation.get("parameters", []))
            response = operation["responses"].get("414")
            assert (response is not None) == has_query, (path, method)
            if has_query:
                with_query += 1
                assert "text/html" in response["content"], (path, method)
                assert "gunicorn" in response["description"]
    assert with_query >= 4
