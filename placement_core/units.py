"""Amounts in the unit an operator reads them in, for every reader: the
console's pages and charts and the maintenance commands' text (both import
it from here, the floor below both of them).

MEMORY_MB in MiB/GiB/TiB, DISK_GB in GiB/TiB, the bandwidth classes
(``*_KILOBIT_PER_SEC``) in kbit/s, Mbit/s or Gbit/s; every other class (VCPU,
PCPU, VFs, custom ones) is a count, shown as counted with thousands
separated.
"""
UNITS = {
    "MEMORY_MB": [(1024 * 1024, "TiB"), (1024, "GiB"), (1, "MiB")],
    "DISK_GB": [(1024, "TiB"), (1, "GiB")],
}
BIT_RATES = [(1_000_000, "Gbit/s"), (1_000, "Mbit/s"), (1, "kbit/s")]


def _steps(resource_class: str):
    if resource_class.endswith("_KILOBIT_PER_SEC"):
        return BIT_RATES
    return UNITS.get(resource_class)


def unit_of(resource_class: str, amount) -> tuple[int, str]:
    """(size, unit) ``amount`` of ``resource_class`` reads best in: the
    largest unit it holds at least one of; (1, "") for classes counted as
    they are (VCPU, PCI devices)."""
    steps = _steps(resource_class)
    if not steps:
        return 1, ""
    for size, unit in steps:
        if abs(amount or 0) >= size:
            return size, unit
    return steps[-1]


def human_amount(amount, resource_class: str) -> str:
    """``amount`` of ``resource_class`` in the unit an operator reads: MEMORY_MB
    and DISK_GB in GiB/TiB, bandwidth classes in Mbit/s or Gbit/s; other
    classes as counted, thousands separated."""
    if amount is None:
        return ""
    if not _steps(resource_class):
        return f"{amount:,}"
    size, unit = unit_of(resource_class, amount)
    value = amount / size
    return f"{value:,.0f} {unit}" if value == int(value) else f"{value:,.1f} {unit}"


def used_of(used, capacity, resource_class: str) -> str:
    """"152 GiB of 992 GiB": a used amount against its capacity."""
    return f"{human_amount(used, resource_class)} of {human_amount(capacity, resource_class)}"


def rate(per_day, resource_class: str) -> str:
    """A trend, signed, in the class's unit: "+10.7 GiB/day", "+3.4/day"."""
    if per_day is None:
        return "-"
    value = abs(round(per_day, 1))
    sign = "" if value == 0 else "+" if per_day > 0 else "-"
    text = human_amount(value, resource_class) if _steps(resource_class) else \
        f"{value:,.1f}".rstrip("0").rstrip(".")
    return f"{sign}{text}/day"


def resources_text(resources: dict) -> str:
    """{class: amount} as "VCPU 4, MEMORY_MB 8 GiB": each amount in its unit."""
    return ", ".join(f"{rc} {human_amount(n, rc)}" for rc, n in resources.items())
