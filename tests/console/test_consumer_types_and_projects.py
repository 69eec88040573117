"""The consumers page filters by consumer type and sums usage per project."""
import pytest

from tests.factories import (AllocationFactory, ConsumerFactory, ConsumerTypeFactory,
                             ProjectFactory, resource_class)

pytestmark = pytest.mark.django_db


def test_type_filter_and_project_totals(staff):
    migration = ConsumerTypeFactory(name="MIGRATION")
    instance = ConsumerTypeFactory(name="INSTANCE")
    alpha = ProjectFactory(external_id="alpha")
    moving = ConsumerFactory(consumer_type=migration, project=alpha)
    running = ConsumerFactory(consumer_type=instance, project=alpha)
    untyped = ConsumerFactory(consumer_type=None)
    AllocationFactory(consumer=moving, used=2)
    AllocationFactory(consumer=running, used=3)
    AllocationFactory(consumer=running, resource_class=resource_class("MEMORY_MB"), used=2048)
    AllocationFactory(consumer=untyped, used=1)

    html = staff.get("/console/consumers/", {"type": "MIGRATION"}).content.decode()
    listed = html.split('id="consumer-list"')[1].split("</table>")[0]
    assert moving.uuid in listed and running.uuid not in listed
    html = staff.get("/console/consumers/", {"type": "unknown"}).content.decode()
    listed = html.split('id="consumer-list"')[1].split("</table>")[0]
    assert untyped.uuid in listed and moving.uuid not in listed

    projects = html.split('id="projects"')[1].split("</table>")[0]
    row = projects.split(">alpha</a>")[1].split("</tr>")[0]
    assert '<td class="num">2</td>' in row
    assert "VCPU" in row and 'data-sort="5">5<' in row
    assert 'data-sort="2048">2 GiB<' in row
