"""``placement.wsgi.api:application``, the module path kolla-ansible,
openstack-helm, OpenStack-Ansible and devstack give uWSGI: this service's
WSGI application (placement_site.wsgi), configuration found the oslo way
(placement_site.config)."""
from placement_site.wsgi import application  # noqa: F401
