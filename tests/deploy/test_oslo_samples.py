"""etc/placement/ holds what oslo's generators make of the package's entry
points; a change to an option or a policy default without `make samples`
fails here."""
from tests.deploy import oslo_samples


def test_the_samples_are_current(tmp_path):
    config, policy = tmp_path / "placement.conf.sample", tmp_path / "policy.yaml.sample"
    oslo_samples.generate(config, policy)
    assert config.read_text() == oslo_samples.CONFIG_SAMPLE.read_text(), "run `make samples`"
    assert policy.read_text() == oslo_samples.POLICY_SAMPLE.read_text(), "run `make samples`"


def test_the_samples_name_the_options_and_rules(tmp_path):
    text = oslo_samples.CONFIG_SAMPLE.read_text()
    for line in ("[placement_database]", "#connection = <None>", "[console]", "#enabled = false",
                 "[keystone_authtoken]", "[oslo_policy]", "#policy_dirs = policy.d"):
        assert line in text
    rules = oslo_samples.POLICY_SAMPLE.read_text()
    assert '#"placement:resource_providers:list": "rule:admin_or_service_api"' in rules
