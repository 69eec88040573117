"""Every operation of the OpenAPI document has a tag, ``GET /`` included
(drf-spectacular derives tags from the path's first segment, and the root
has none), so that Swagger UI and generated clients group it like the rest."""

import pytest

pytestmark = pytest.mark.django_db


def test_the_root_has_a_tag_like_every_operation(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if method in ("get", "put", "post", "delete", "patch"):
                assert operation.get("tags"), (path, method)
    assert document["paths"]["/"]["get"]["tags"] == ["versions"]
