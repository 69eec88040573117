"""Flavors stored by operators: checked with the PLACEMENT_FLAVORS reader
(and the catalog), counted by headroom and the metric beside the setting's;
a name both define is the setting's."""
import pytest
from django.test import Client

from placement_core import errors
from placement_core.querystring import Flavor as Spec
from placement_core.querystring import parse_flavors
from planning import capacity_metrics, flavor_services
from planning.headroom import flavor_list, headroom
from planning.models import Flavor
from tests import factories as f
from tests.support.world import World

pytestmark = pytest.mark.django_db


def _refused(name="m1", resources="VCPU:1"):
    with pytest.raises(errors.BadRequest) as exc:
        flavor_services.flavor_create(name=name, resources=resources)
    return exc.value.detail


def test_create_writes_the_resources_back_in_one_form():
    flavor = flavor_services.flavor_create(name=" m1.large ",
                                    resources="resources=VCPU:4,MEMORY_MB:8192,DISK_GB:80")
    assert (flavor.name, flavor.resources) == ("m1.large", "VCPU:4,MEMORY_MB:8192,DISK_GB:80")


@pytest.mark.parametrize("resources", ["VCPU:0", "VCPU:x", "VCPU", "VCPU:1,VCPU:2", ""])
def test_bad_amounts_are_refused_with_the_settings_readers_words(resources):
    detail = _refused(resources=resources)
    if resources:
        with pytest.raises(ValueError) as settings_error:
            parse_flavors(f"m1={resources}")
        assert detail == str(settings_error.value)
    else:
        assert "give its resources" in detail
    assert not Flavor.objects.exists()


def test_unknown_resource_classes_are_refused():
    assert _refused(resources="VCPU:1,CUSTOM_NOPE:2,NOPE:1") == (
        "flavor 'm1': no such resource class(es): CUSTOM_NOPE, NOPE.")
    f.ResourceClassFactory(name="CUSTOM_GPU")
    assert flavor_services.flavor_create(name="gpu", resources="CUSTOM_GPU:1").resources == "CUSTOM_GPU:1"


@pytest.mark.parametrize("name,words", [
    ("", "A flavor needs a name."), ("  ", "A flavor needs a name."),
    ("a;b", "';' and '=' are not allowed"), ("a=b", "';' and '=' are not allowed"),
    ("x" * 256, "at most 255 characters"),
])
def test_names_the_setting_could_not_hold_are_refused(name, words):
    assert words in _refused(name=name)


def test_two_flavors_at_once_and_a_taken_name_are_refused():
    assert "one flavor at a time" in _refused(resources="VCPU:1; m2=VCPU:2")
    f.FlavorFactory(name="m1")
    with pytest.raises(errors.Conflict):
        flavor_services.flavor_create(name="m1", resources="VCPU:2")


def test_a_name_the_setting_defines_is_refused(settings):
    settings.PLACEMENT_FLAVORS = [Spec("m1.large", {"VCPU": 4})]
    assert "defined in PLACEMENT_FLAVORS" in _refused(name="m1.large")


def test_delete():
    f.FlavorFactory(name="m1")
    flavor_services.flavor_delete(name="m1")
    assert not Flavor.objects.exists()
    with pytest.raises(errors.NotFound):
        flavor_services.flavor_delete(name="m1")


def test_flavor_list_is_the_setting_then_the_stored_and_the_setting_wins_a_name(settings):
    settings.PLACEMENT_FLAVORS = [Spec("z.set", {"VCPU": 8}), Spec("both", {"VCPU": 2})]
    f.FlavorFactory(name="a.stored", resources="VCPU:1,MEMORY_MB:512")
    f.FlavorFactory(name="both", resources="VCPU:4")  # stored before the setting had it
    assert flavor_list() == [Spec("z.set", {"VCPU": 8}), Spec("both", {"VCPU": 2}),
                             Spec("a.stored", {"VCPU": 1, "MEMORY_MB": 512})]


def test_headroom_and_the_metric_count_stored_flavors_beside_the_setting(settings):
    settings.PLACEMENT_FLAVORS = [Spec("set", {"VCPU": 4}), Spec("both", {"VCPU": 2})]
    f.FlavorFactory(name="stored", resources="VCPU:8")
    f.FlavorFactory(name="both", resources="VCPU:16")
    World().provider("cn", inventory={"VCPU": 16})
    counts = headroom(flavor_list())
    assert {name: c["cloud"] for name, c in counts.items()} == {"set": 4, "both": 8, "stored": 2}
    capacity_metrics.clear_cache()
    body = Client().get("/metrics", HTTP_X_AUTH_TOKEN="admin").content.decode()
    assert 'placement_headroom_instances{aggregate="",flavor="stored"} 2.0' in body
    assert 'placement_headroom_instances{aggregate="",flavor="both"} 8.0' in body


def test_the_metric_with_stored_flavors_only(settings):
    settings.PLACEMENT_FLAVORS = []
    f.FlavorFactory(name="only", resources="VCPU:1")
    World().provider("cn", inventory={"VCPU": 3})
    capacity_metrics.clear_cache()
    body = Client().get("/metrics", HTTP_X_AUTH_TOKEN="admin").content.decode()
    assert 'placement_headroom_instances{aggregate="",flavor="only"} 3.0' in body
