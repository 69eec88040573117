"""Upstream's entry points, on top of this service (placement_site).

Deployment tools name ``placement.wsgi.api:application`` (uWSGI) and the
``placement-api`` script (Apache mod_wsgi); both lead here.  This package
has upstream's top-level name, so this distribution and upstream's
openstack-placement cannot be installed in the same virtualenv.
"""
