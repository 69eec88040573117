"""Finishing touches on the generated OpenAPI document (a drf-spectacular
postprocessing hook), for what every operation shares and the views'
decorators would only repeat:

- the ``X-Auth-Token`` security scheme, and the ``OpenStack-API-Version``
  header on every operation (the document describes the newest microversion);
- 401 and 403 on every operation, 406 on reads, 415 and a required body on writes
  with a body, each with Placement's error body; 414 (from the HTTP server in
  front) on operations with query parameters;
- the patterns the server enforces on path parameters (uuids, resource class
  and trait names);
- JSON Schema 2020-12 spellings of the request schemas the API validates
  with (they are Draft 4, as upstream's: ``exclusiveMinimum: true`` becomes a
  number);
- a description on every operation, one spelling of the tags (and one for
  ``GET /``), ``limit`` a number, and the checks the server makes on query
  parameters (uuids, ``group_policy``, ``/usages`` ids, and the request-group
  grammar's forms from ``placement_core.querystring.PATTERNS``, or
  ``PROVIDER_LIST_PATTERNS`` on the provider list, with the suffixed group
  parameters in ``x-suffixed-parameters``);
- named components for the request and response bodies.
"""
import copy

from placement_core import querystring
from placement_core.microversion import MAX_VERSION
from placement_core.uuids import UUID_FORMAT_SPELLING

# Query numbers of this project's own paths whose bounds are not upstream's
# `limit` (planning.failures.arguments checks the same ones).
_OWN_BOUNDS = {
    ("/planning/failures", "limit"): (0, 1000),
    ("/planning/failures", "hours"): (1, 8760),
}

ERROR_REF = {"$ref": "#/components/schemas/Error"}
UUID_PATTERN = (
    "^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$"
)
_PATH_PARAMETERS = {
    "uuid": {"type": "string", "pattern": UUID_PATTERN},
    "resource_class": {"type": "string", "pattern": "^[A-Z0-9_]+$", "maxLength": 255},
}
# Any consumer may be read (an unknown one has no allocations); only a uuid
# may be written.
_CONSUMER_BY_METHOD = {"put": {"type": "string", "pattern": UUID_PATTERN}}
# From 1.7 PUT /resource_classes/{name} takes no body, and ignores one.
_OPTIONAL_BODY = {("/resource_classes/{name}", "put"): (
    "Before microversion 1.7: `{\"name\": \"CUSTOM_...\"}` renames the class. From 1.7: "
    "no body (one sent is ignored); creates `{name}` (201) or confirms it (204).")}
# Only custom names may be created or deleted; any name may be read.
_NAME_BY_METHOD = {
    "get": {"type": "string", "pattern": "^[A-Z0-9_]+$", "maxLength": 255},
    "put": {"type": "string", "pattern": "^CUSTOM_[A-Z0-9_]+$", "maxLength": 255},
    "delete": {"type": "string", "pattern": "^CUSTOM_[A-Z0-9_]+$", "maxLength": 255},
}
_ERRORS = {
    "400": "Bad request: the body or query string is malformed or not allowed.",
    "401": "No (valid) X-Auth-Token.",
    "403": "Policy does not allow this caller.",
    "406": "The Accept header does not allow application/json.",
    "415": "The body is not application/json.",
}
# Answered by the HTTP server in front, before the application sees the request.
_URI_TOO_LONG = {
    "description": "The request line is longer than the HTTP server in front takes "
                   "(gunicorn: 4094 bytes); answered by that server, in its own format.",
    "content": {"text/html": {"schema": {"type": "string"}}},
}
_BASE_DOCSTRING = "Base class for every Placement endpoint."
# Query parameters read by the request-group grammar, with its patterns.
_GRAMMAR_PARAMETERS = {
    "/allocation_candidates": ("resources", "required", "member_of", "in_tree",
                               "root_required", "same_subtree"),
    "/resource_providers": ("resources", "required", "member_of"),
}
_PATTERN_NOTE = (
    " The pattern is the value's form; a value of that form is still refused (400) when it "
    "names an unknown resource class, trait or group suffix, asks for an amount of 0, names "
    "a class twice or both requires and forbids a trait (and, as Python's `$` allows, a "
    "trailing newline after a uuid is refused).")
_LIST_PATTERN_NOTE = (
    " The pattern is the value's form, with names of any spelling: this list looks a name up "
    "only while the filters before it (in_tree, required, member_of, resources, in that "
    "order) still match some provider, and otherwise answers an empty list, as upstream. A "
    "value of that form is still refused (400) for an unknown or empty name, an amount of 0, "
    "`!` inside `in:`, or a trait both required and forbidden.")
_SUFFIXED_NOTE = (
    "Request groups: each of `resources`, `required`, `member_of` and `in_tree` may also be "
    "sent suffixed (`resources1`, `required_NIC`, ...: a suffix is 1 to 64 of "
    "`[a-zA-Z0-9_-]`, digits only before 1.33), with the unsuffixed form's pattern. OpenAPI "
    "cannot name such parameters; `x-suffixed-parameters` maps each key pattern to its schema.")


def _suffixed_parameters():
    return {
        f"^{name}{querystring.SUFFIX}$": {"type": "string",
                                          "pattern": querystring.PATTERNS[name]}
        for name in ("resources", "required", "member_of", "in_tree")
    }
HTTP_METHODS = ("get", "put", "post", "delete", "patch")


def _draft4_to_2020(schema):
    """Draft 4's boolean exclusive bounds as 2020-12 numbers, everywhere."""
    if isinstance(schema, dict):
        for bound, exclusive in (("minimum", "exclusiveMinimum"), ("maximum", "exclusiveMaximum")):
            if schema.get(exclusive) is True and bound in schema:
                schema[exclusive] = schema.pop(bound)
            elif schema.get(exclusive) is False:
                del schema[exclusive]
        for value in schema.values():
            _draft4_to_2020(value)
    elif isinstance(schema, list):
        for value in schema:
            _draft4_to_2020(value)


# With auth_strategy keystone, keystonemiddleware answers a missing or bad
# token itself, in its own shape.
KEYSTONE_ERROR = {
    "type": "object",
    "properties": {"error": {"type": "object", "properties": {
        "code": {"type": "integer"}, "title": {"type": "string"},
        "message": {"type": "string"}}}},
    "required": ["error"],
}


def _error(description, status=None):
    schema = copy.deepcopy(ERROR_REF)
    if status == "401":
        schema = {"oneOf": [schema, {"$ref": "#/components/schemas/KeystoneError"}]}
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _version_header():
    return {
        "in": "header", "name": "OpenStack-API-Version", "required": False,
        "description": "`placement X.Y` (1.0 to "
                       f"{MAX_VERSION[0]}.{MAX_VERSION[1]}) or `placement latest`; "
                       "without it, 1.0.",
        "schema": {"type": "string", "enum": ["placement latest",
                                              f"placement {MAX_VERSION[0]}.{MAX_VERSION[1]}"]},
    }


def postprocess(result, generator, request, public):
    # The generated document shares its request schemas with the validators
    # the API uses (Draft 4): rewrite a copy, never those.
    result = copy.deepcopy(result)
    components = result.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    from placement_core.api import ERROR_BODY

    schemas.setdefault("Error", copy.deepcopy(ERROR_BODY))
    schemas.setdefault("KeystoneError", copy.deepcopy(KEYSTONE_ERROR))
    components.setdefault("securitySchemes", {})["token"] = {
        "type": "apiKey", "in": "header", "name": "X-Auth-Token",
        "description": "A Keystone token (or, with auth_strategy noauth2, `admin`).",
    }
    result["security"] = [{"token": []}]
    for path, item in result.get("paths", {}).items():
        for method, operation in item.items():
            if method not in HTTP_METHODS:
                continue
            if path == "/":
                operation["security"] = [{}, {"token": []}]  # the root needs no token
            params = [p for p in operation.get("parameters", [])
                      if p.get("name") != "OpenStack-API-Version"]
            for param in params:
                if param.get("in") != "path":
                    continue
                if param["name"] == "name":
                    param["schema"] = dict(_NAME_BY_METHOD.get(method, _NAME_BY_METHOD["get"]))
                elif param["name"] == "consumer_uuid":
                    param["schema"] = dict(_CONSUMER_BY_METHOD.get(method, {"type": "string"}))
                elif param["name"] in _PATH_PARAMETERS:
                    param["schema"] = dict(_PATH_PARAMETERS[param["name"]])
            params.append(_version_header())
            operation["parameters"] = params
            responses = operation.setdefault("responses", {})
            wanted = ["401", "403"] + (["406"] if method == "get" else [])
            body = operation.get("requestBody")
            if (path, method) in _OPTIONAL_BODY:
                operation["requestBody"] = body = {
                    "required": False, "description": _OPTIONAL_BODY[(path, method)],
                    "content": {"application/json": {"schema": {}}}}
            elif body is not None:
                body["required"] = True
            if body is not None:
                wanted += ["400", "415"]
            if any(p.get("in") == "query" for p in params):
                wanted.append("400")
                responses.setdefault("414", copy.deepcopy(_URI_TOO_LONG))
            for status in wanted:
                if path == "/" and status in ("401", "403"):
                    continue
                responses.setdefault(status, _error(_ERRORS[status], status))
            created = responses.get("201")
            if created is not None:
                # Every 201 names what it made in Location (upstream's answers).
                created.setdefault("headers", {})["Location"] = {
                    "description": "The URL of what was created.",
                    "schema": {"type": "string", "format": "uri-reference"}}
            for status, response in responses.items():
                if status.startswith(("4", "5")) and "content" not in response:
                    response["content"] = {"application/json": {"schema": copy.deepcopy(ERROR_REF)}}
            # One spelling of the tags ("resource providers", not "resource_providers").
            operation["tags"] = [t.replace("_", " ") for t in operation.get("tags") or []]
            for param in params:
                if param.get("in") != "query":
                    continue
                name = param["name"]
                grammar = _GRAMMAR_PARAMETERS.get(path, ())
                if (path, name) in _OWN_BOUNDS:
                    low, high = _OWN_BOUNDS[path, name]
                    param["schema"] = {"type": "integer", "minimum": low, "maximum": high}
                elif name == "limit":
                    # The server reads it as digits (upstream's schema); it is a number.
                    param["schema"] = {"type": "integer", "minimum": 1, "maximum": 2**31 - 1}
                elif name in grammar:
                    # The request-group grammar's forms (placement_core.querystring.PATTERNS;
                    # the provider list's names of any spelling, PROVIDER_LIST_PATTERNS).
                    forms = (querystring.PROVIDER_LIST_PATTERNS
                             if path == "/resource_providers" else {})
                    pattern = {"type": "string",
                               "pattern": forms.get(name, querystring.PATTERNS[name])}
                    if param["schema"].get("type") == "array":
                        param["schema"] = {"type": "array", "items": pattern}
                    else:
                        param["schema"] = pattern
                    param["description"] = (param.get("description") or "") + (
                        _LIST_PATTERN_NOTE if name in forms else _PATTERN_NOTE)
                elif name in ("in_tree", "uuid"):
                    # Checked as a body's "format": "uuid" is.
                    param["schema"] = {"type": "string", "pattern": f"^{UUID_FORMAT_SPELLING}$"}
                elif name == "group_policy":
                    param["schema"] = {"type": "string", "enum": ["none", "isolate"]}
                elif path == "/usages":
                    # External ids and consumer types: 1 to 255 characters, no NUL.
                    param["schema"] = {"type": "string", "minLength": 1, "maxLength": 255,
                                       "pattern": "^[^\\x00]*$"}
            if path == "/allocation_candidates" and method == "get":
                operation["x-suffixed-parameters"] = _suffixed_parameters()
            if path == "/" and not operation.get("tags"):
                operation["tags"] = ["versions"]
            description = operation.get("description") or ""
            if not description or description == _BASE_DOCSTRING or description.startswith("/"):
                operation["description"] = operation.get("summary") or description
            if path == "/allocation_candidates" and method == "get":
                operation["description"] += "\n\n" + _SUFFIXED_NOTE
    _name_bodies(result)
    _draft4_to_2020(result)
    return result


def _camel(operation_id: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in operation_id.replace("-", "_").split("_"))


def _name_bodies(result):
    """Inline request and 2xx response bodies become named components
    (``<OperationId>Request`` / ``<OperationId>Response``), so generated
    clients get real type names."""
    schemas = result["components"]["schemas"]
    for item in result.get("paths", {}).values():
        for method, operation in item.items():
            if method not in HTTP_METHODS or "operationId" not in operation:
                continue
            base = _camel(operation["operationId"])
            parts = [("Request", operation.get("requestBody"))] + [
                ("Response", r) for status, r in operation.get("responses", {}).items()
                if status.startswith("2")]
            for suffix, part in parts:
                content = (part or {}).get("content", {}).get("application/json")
                schema = (content or {}).get("schema")
                if not schema or "$ref" in schema or schema.get("type") != "object":
                    continue
                name = base + suffix
                schemas[name] = schema
                content["schema"] = {"$ref": f"#/components/schemas/{name}"}
