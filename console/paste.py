"""What an operator pastes into "Why no candidates?": a bare query string,
a ``/allocation_candidates?...`` path, a whole URL, or a line of a Nova or
keystoneauth log that holds one (``GET call to placement for
http://.../allocation_candidates?... used request id ...``, ``REQ: curl -g
-i -X GET "http://.../allocation_candidates?..." -H ...``).

:func:`query_of` finds the query string in it; :func:`plain_problems`
words what the API's JSON Schema would refuse in a sentence a person reads
(the API's own message quotes the schema's patterns).
"""
from __future__ import annotations

import html
import re

from django.http import QueryDict

# The path, then its query up to a blank, a quote or an angle bracket (how
# log lines and curl commands end a URL).
_LOGGED = re.compile(r"allocation_candidates(?:\?([^\s\"'<>]*))?")
_SUFFIXED = re.compile(r"^(resources|required|member_of|in_tree)([a-zA-Z0-9_-]{1,64})?$")
_PLAIN = ("limit", "group_policy", "root_required", "same_subtree")
_TAKES = ("resources, required, member_of and in_tree (each may carry a request-group "
          "suffix, as in resources1 or resources_gpu), group_policy, limit, root_required "
          "and same_subtree")


class NoQuery(ValueError):
    """The pasted text holds no query."""


def query_of(text: str) -> str:
    """The allocation-candidates query string in ``text`` (without ``?``)."""
    text = html.unescape(text.strip())  # a log shown as HTML writes & as &amp;
    found = _LOGGED.search(text)
    if found:
        query = found.group(1) or ""
        if not query:
            raise NoQuery("That line names /allocation_candidates but no query after it "
                          "(nothing follows a ?).")
        return query.rstrip(".,;)")
    if re.match(r"^[a-z]+://", text) or text.startswith("/"):
        path, mark, query = text.partition("?")
        if not mark:
            raise NoQuery("That URL has no query string (nothing follows a ?).")
        return query.split()[0] if query.split() else ""
    return text.lstrip("?")


def plain_problems(query: str) -> list[str]:
    """Sentences for the parameters the API's schema would refuse (unknown
    names, limit and group_policy values); empty when the schema passes
    them and the API's own words (the grammar's) are plain already."""
    problems = []
    params = QueryDict(query)
    for key in params:
        if key in _PLAIN or _SUFFIXED.match(key):
            continue
        problems.append(f"{key!r} is not a parameter of GET /allocation_candidates; "
                        f"it takes {_TAKES}.")
    for value in params.getlist("limit"):
        if not re.fullmatch(r"[1-9][0-9]*", value):
            problems.append(f"limit must be a whole number of at least 1, not {value!r}.")
    for value in params.getlist("group_policy"):
        if value not in ("none", "isolate"):
            problems.append(f"group_policy must be none or isolate, not {value!r}.")
    return problems


def first_line(message: str) -> str:
    """The API's message without a validator's schema dump after it."""
    return message.strip().split("\n", 1)[0]
