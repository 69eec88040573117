"""Provider trees as stored: parent cycles and roots that are not their
tree's top (rows written behind the API's back). Used by the audit
(``operations.audit.invalid_rows``) and by the loader's checks
(``maintenance.validation``)."""
from __future__ import annotations


def tree_problems(links: dict, where) -> tuple[list[str], dict]:
    """Parent cycles and roots that are not the top of their tree.

    ``links`` maps each provider's uuid to ``(parent uuid, root uuid)``
    (root None: not given, worked out by the caller). ``where(uuid)`` names
    a provider's row. Returns the problems and each provider's top of tree
    (None for a provider on or below a cycle, or below a missing parent).
    """
    problems, top = [], {}
    for start in links:
        path, position, node = [], {}, start
        while True:
            if node is None:  # reached a provider without parent
                found = path[-1]
                break
            if node in top:  # joined a walk done before
                found = top[node]
                break
            if node in position:
                cycle = path[position[node]:] + [node]
                problems.append(f"{where(node)}: parent cycle {' -> '.join(cycle)}")
                found = None
                break
            if node not in links:
                problems.append(f"{where(path[-1])}: parent {node!r} is neither in the file "
                                "nor stored")
                found = None
                break
            position[node] = len(path)
            path.append(node)
            node = links[node][0]
        for member in path:
            top[member] = found
    for uuid, (_parent, root) in links.items():
        if top.get(uuid) is not None and root is not None and root != top[uuid]:
            problems.append(f"{where(uuid)}: root {root!r} is not the top of its tree "
                            f"({top[uuid]!r})")
    return problems, top


def stored_links() -> dict:
    from providers.models import ResourceProvider

    return {uuid: (parent, root) for uuid, parent, root in ResourceProvider.objects.values_list(
        "uuid", "parent__uuid", "root__uuid").iterator()}
