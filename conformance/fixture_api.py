"""Gabbi fixtures that re-create upstream Placement's functional-test
fixtures against a *live* server, through the HTTP API only.

Upstream's fixtures (placement/tests/functional/fixtures/gabbits.py in the
openstack-placement package) build their data directly in the database
through Placement's Python objects layer (the ``tb`` helpers).  Each helper
has an HTTP request with the same effect, so resource-provider and consumer
generations come out as the gabbits expect, as long as the calls are made
in the same order and the server bumps generations as Placement does:

=====================================  =====================================
objects layer (tb / fixture)           HTTP request used here
=====================================  =====================================
tb.create_provider(name, uuid, parent) POST /resource_providers  (mv 1.20)
rp.set_aggregates(aggs)                PUT  /resource_providers/{u}/aggregates
  (increment_generation=False)           at mv 1.18 (list body; <1.19 does
                                         NOT bump the provider generation)
tb.ensure_rc / ResourceClass.create    PUT /resource_classes/{name} (mv 1.7)
                                         / POST /resource_classes (mv 1.2);
                                         standard classes: GET only
tb.add_inventory (max_unit=total       POST /resource_providers/{u}/inventories
  unless given)                          (+1 provider generation)
tb.set_traits (creates missing custom  PUT /traits/{name} for each CUSTOM_*,
  traits, then replaces the set)         GET /traits/{name} for standard ones,
                                         then PUT /resource_providers/{u}/traits
                                         (+1 provider generation)
tb.ensure_consumer + tb.set_allocation PUT /allocations/{consumer} at mv 1.28
  (consumer gen 0 -> 1, +1 generation    with consumer_generation null (new
  for each provider involved)            consumer) and no consumer_type
=====================================  =====================================

Users and projects that upstream creates up front (User/Project.create) are
created implicitly by the allocation write, as the API does.

This module holds that client (``Api``) and ``APIFixture``, the base of
every fixture; the fixtures with data are in fixtures_storage.py and
fixtures_numa.py, and http_fixtures.py is the module gabbi resolves a
file's ``fixtures:`` names in.

Set ``BASE_URL`` (module global) before running a suite.
"""

import os
import uuid as uuidlib

import httpx
from gabbi import fixture


BASE_URL = None          # e.g. "http://127.0.0.1:18101", set by the runner
REQUEST_TIMEOUT = 60

ADMIN_HEADERS = {
    'x-auth-token': 'admin',
    'accept': 'application/json',
}


class FixtureHTTPError(Exception):
    pass


def new_uuid():
    return str(uuidlib.uuid4())


# ---------------------------------------------------------------------------
# A tiny client with the HTTP equivalents of the ``tb`` helpers.
# ---------------------------------------------------------------------------
class Provider(object):
    def __init__(self, name, uuid):
        self.name = name
        self.uuid = uuid


class Consumer(object):
    def __init__(self, uuid, user, project):
        self.uuid = uuid
        self.user = user
        self.project = project


class Api(object):

    def __init__(self, base_url):
        self.client = httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT,
                                   trust_env=False)

    def close(self):
        self.client.close()

    def request(self, method, path, mv=None, json=None, expect=(200,)):
        headers = dict(ADMIN_HEADERS)
        if mv:
            headers['openstack-api-version'] = 'placement %s' % mv
        if json is not None:
            headers['content-type'] = 'application/json'
        resp = self.client.request(method, path, headers=headers, json=json)
        if resp.status_code not in expect:
            raise FixtureHTTPError(
                'fixture request %s %s (mv %s) -> %s, expected %s: %s' % (
                    method, path, mv, resp.status_code, expect,
                    resp.text[:1000]))
        return resp

    # -- tb.create_provider -------------------------------------------------
    def create_provider(self, name, *aggs, **kwargs):
        parent = kwargs.get('parent')
        uuid = kwargs.get('uuid') or new_uuid()
        body = {'name': name, 'uuid': uuid}
        if parent:
            body['parent_provider_uuid'] = parent
        self.request('POST', '/resource_providers', mv='1.20', json=body)
        rp = Provider(name, uuid)
        if aggs:
            self.set_aggregates(rp, aggs)
        return rp

    # -- rp.set_aggregates(aggs) (increment_generation=False) --------------
    def set_aggregates(self, rp, aggs):
        # Microversions 1.1-1.18 take a plain list and do not touch the
        # provider generation, matching the objects-layer default.
        self.request('PUT', '/resource_providers/%s/aggregates' % rp.uuid,
                     mv='1.18', json=list(aggs))

    def generation(self, rp):
        resp = self.request('GET', '/resource_providers/%s' % rp.uuid,
                            mv='1.14')
        return resp.json()['generation']

    # -- tb.ensure_rc / ResourceClass.create --------------------------------
    def ensure_rc(self, name):
        if not name.startswith('CUSTOM_'):
            # Standard classes are synced by the server at startup.
            self.request('GET', '/resource_classes/%s' % name, mv='1.2')
            return
        self.request('PUT', '/resource_classes/%s' % name, mv='1.7',
                     expect=(201, 204))

    def create_rc(self, name):
        self.request('POST', '/resource_classes', mv='1.2',
                     json={'name': name}, expect=(201,))

    # -- tb.add_inventory ---------------------------------------------------
    def add_inventory(self, rp, rc, total, **kwargs):
        self.ensure_rc(rc)
        kwargs.setdefault('max_unit', total)
        body = dict(kwargs)
        body['resource_class'] = rc
        body['total'] = total
        body['resource_provider_generation'] = self.generation(rp)
        self.request('POST', '/resource_providers/%s/inventories' % rp.uuid,
                     mv='1.14', json=body, expect=(201,))

    # -- tb.set_traits ------------------------------------------------------
    def set_traits(self, rp, *traits):
        for name in traits:
            if name.startswith('CUSTOM_'):
                self.request('PUT', '/traits/%s' % name, mv='1.6',
                             expect=(201, 204))
            else:
                # Standard traits are synced by the server at startup.
                self.request('GET', '/traits/%s' % name, mv='1.6',
                             expect=(204,))
        body = {'traits': list(traits),
                'resource_provider_generation': self.generation(rp)}
        self.request('PUT', '/resource_providers/%s/traits' % rp.uuid,
                     mv='1.6', json=body)

    # -- tb.ensure_consumer -------------------------------------------------
    @staticmethod
    def ensure_consumer(user, project, consumer_id=None):
        # The consumer record is created by the first allocation write,
        # exactly as the API does; nothing to send yet.
        return Consumer(consumer_id or new_uuid(), user, project)

    # -- tb.set_allocation --------------------------------------------------
    def set_allocation(self, rp, consumer, rc_used_dict):
        resp = self.request('GET', '/allocations/%s' % consumer.uuid,
                            mv='1.28')
        gen = resp.json().get('consumer_generation')
        body = {
            'allocations': {rp.uuid: {'resources': dict(rc_used_dict)}},
            'project_id': consumer.project,
            'user_id': consumer.user,
            'consumer_generation': gen,
        }
        self.request('PUT', '/allocations/%s' % consumer.uuid, mv='1.28',
                     json=body, expect=(204,))


# ---------------------------------------------------------------------------
# Fixtures (same names and same data as upstream).
# ---------------------------------------------------------------------------
class APIFixture(fixture.GabbiFixture):
    """Basic placement service: only sets the environment variables."""

    def start_fixture(self):
        if not BASE_URL:
            raise RuntimeError('fixture_api.BASE_URL is not set')
        self.api = Api(BASE_URL)
        os.environ['RP_UUID'] = new_uuid()
        os.environ['RP_NAME'] = new_uuid()
        os.environ['RP_UUID1'] = new_uuid()
        os.environ['RP_NAME1'] = new_uuid()
        os.environ['RP_UUID2'] = new_uuid()
        os.environ['RP_NAME2'] = new_uuid()
        os.environ['CUSTOM_RES_CLASS'] = 'CUSTOM_IRON_NFV'
        os.environ['CUSTOM_RES_CLASS1'] = 'CUSTOM_IRON_NFV1'
        os.environ['CUSTOM_RES_CLASS2'] = 'CUSTOM_IRON_NFV2'
        os.environ['PROJECT_ID'] = new_uuid()
        os.environ['ADMIN_PROJECT_ID'] = new_uuid()
        os.environ['SERVICE_PROJECT_ID'] = new_uuid()
        os.environ['USER_ID'] = new_uuid()
        os.environ['PROJECT_ID_ALT'] = new_uuid()
        os.environ['USER_ID_ALT'] = new_uuid()
        os.environ['INSTANCE_UUID'] = new_uuid()
        os.environ['MIGRATION_UUID'] = new_uuid()
        os.environ['CONSUMER_UUID'] = new_uuid()
        os.environ['PARENT_PROVIDER_UUID'] = new_uuid()
        os.environ['ALT_PARENT_PROVIDER_UUID'] = new_uuid()

    def stop_fixture(self):
        api = getattr(self, 'api', None)
        if api:
            api.close()
