"""Allocation request bodies and the names they carry, as the API tests send them."""
import uuid

PROJECT = "6f3d7c3e-0b6a-4d39-9d0e-4fc1f1a1b001"
USER = "9c9f3a55-55a4-4d4e-8bd0-1b0c3a2c2002"


def new_uuid():
    return str(uuid.uuid4())


def body(allocs, *, project=PROJECT, user=USER, **extra):
    """A 1.12+ PUT body: allocs is {provider_uuid: {class: amount}}."""
    data = {
        "allocations": {rp: {"resources": res} for rp, res in allocs.items()},
        "project_id": project,
        "user_id": user,
    }
    data.update(extra)
    return data


def list_body(allocs, **extra):
    """A 1.0-1.11 PUT body."""
    data = {
        "allocations": [
            {"resource_provider": {"uuid": rp}, "resources": res} for rp, res in allocs.items()
        ]
    }
    data.update(extra)
    return data


def detail(response):
    return response.json()["errors"][0]["detail"]
