"""Helpers for the tests that pin an answer to upstream Placement's.

Each test here reproduces one difference a differential run against
upstream openstack-placement 16.0.0 found, and asserts upstream's answer.
Everything is set up through the HTTP API, as a client would.
"""
import uuid

import pytest

PROJECT = "proj-a"
USER = "user-a"


def new_uuid():
    return str(uuid.uuid4())


class Cloud:
    """A few verbs over the API client for building a scenario."""

    def __init__(self, api):
        self.api = api

    def provider(self, parent=None, inventory=None):
        rp = new_uuid()
        body = {"name": f"rp-{rp}", "uuid": rp}
        if parent:
            body["parent_provider_uuid"] = parent
        assert self.api.post("/resource_providers", json=body, mv="1.20").status_code == 200
        if inventory:
            self.set_inventory(rp, inventory)
        return rp

    def generation(self, rp):
        return self.api.get(f"/resource_providers/{rp}", mv="1.20").json()["generation"]

    def set_inventory(self, rp, inventory):
        response = self.api.put(f"/resource_providers/{rp}/inventories", mv="1.26", json={
            "resource_provider_generation": self.generation(rp), "inventories": inventory})
        assert response.status_code == 200, response.content

    def claim(self, consumer, allocations, generation=None, project=PROJECT, user=USER):
        """PUT /allocations at 1.28: ``allocations`` is {rp: {class: amount}}."""
        return self.api.put(f"/allocations/{consumer}", mv="1.28", json={
            "allocations": {rp: {"resources": res} for rp, res in allocations.items()},
            "project_id": project, "user_id": user, "consumer_generation": generation})

    def consumer(self, consumer, mv="1.38"):
        return self.api.get(f"/allocations/{consumer}", mv=mv).json()


@pytest.fixture
def cloud(api):
    return Cloud(api)
