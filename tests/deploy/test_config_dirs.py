"""placement.conf found where oslo.config finds it: placement.conf.d read
after placement.conf in name order, --config-dir, the default search path;
policy files found where oslo.policy finds them."""
import pytest

from placement_core import policy
from placement_site import config


@pytest.fixture(autouse=True)
def _fresh_policy():
    policy.reset()
    yield
    policy.reset()


def layout(root, conf="", parts=None):
    root.mkdir(parents=True, exist_ok=True)
    (root / "placement.conf").write_text(conf)
    for name, text in (parts or {}).items():
        (root / "placement.conf.d").mkdir(exist_ok=True)
        (root / "placement.conf.d" / name).write_text(text)
    return root


def test_conf_d_is_read_after_placement_conf_in_name_order(tmp_path):
    layout(tmp_path, "[placement]\nmax_allocation_candidates = 5\n[api]\nauth_strategy = keystone\n",
           {"20-b.conf": "[placement]\nmax_allocation_candidates = 7\n",
            "10-a.conf": "[placement]\nmax_allocation_candidates = 6\n"
                         "[api]\nauth_strategy = noauth2\n",
            "notes.txt": "[placement]\nmax_allocation_candidates = 99\n"})
    values, conf = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert values["PLACEMENT_MAX_ALLOCATION_CANDIDATES"] == 7
    assert values["PLACEMENT_AUTH_STRATEGY"] == "noauth2"
    assert values["CONFIG_DIRS"] == [str(tmp_path / "placement.conf.d")]


def test_keystone_section_in_conf_d_reaches_keystonemiddleware(tmp_path):
    # openstack-helm keeps the service password in placement.conf.d.
    layout(tmp_path, "[keystone_authtoken]\nauth_url = http://keystone:5000/v3\n",
           {"01-secret.conf": "[keystone_authtoken]\npassword = s3cret\n"})
    _values, conf = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    from oslo_config import cfg

    # What keystonemiddleware's password plugin registers and reads.
    conf.register_opts([cfg.StrOpt("auth_url"), cfg.StrOpt("password", secret=True)],
                       group="keystone_authtoken")
    assert conf.keystone_authtoken.auth_url == "http://keystone:5000/v3"
    assert conf.keystone_authtoken.password == "s3cret"


def test_config_dir_option_replaces_the_default_directories(tmp_path):
    layout(tmp_path / "etc", "[placement]\nmax_allocation_candidates = 5\n",
           {"a.conf": "[placement]\nmax_allocation_candidates = 6\n"})
    extra = tmp_path / "extra"
    extra.mkdir()
    (extra / "z.conf").write_text("[placement]\nmax_allocation_candidates = 8\n")
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path / "etc"),
                             "PLACEMENT_CONFIG_DIRS": str(extra)})
    assert values["PLACEMENT_MAX_ALLOCATION_CANDIDATES"] == 8
    with pytest.raises(config.ConfigError, match="configuration directory .* does not exist"):
        config.load({"PLACEMENT_CONFIG_DIRS": str(tmp_path / "missing")})


def test_default_search_is_oslo_configs(tmp_path, monkeypatch):
    # ~/.placement/placement.conf and ~/.placement/placement.conf.d, as for
    # any OpenStack service (the /etc/placement of a real host likewise).
    monkeypatch.setenv("HOME", str(tmp_path))
    layout(tmp_path / ".placement", "[placement]\nmax_allocation_candidates = 5\n",
           {"x.conf": "[placement]\nmax_allocation_candidates = 9\n"})
    values, _ = config.load({})
    assert values["CONFIG_FILES"] == [str(tmp_path / ".placement" / "placement.conf")]
    assert values["PLACEMENT_MAX_ALLOCATION_CANDIDATES"] == 9


POLICY = '"placement:resource_providers:list": "role:nobody"\n'


def test_relative_policy_file_is_found_beside_placement_conf(tmp_path):
    # kolla-ansible: policy_file = policy.yaml, a bare name.
    layout(tmp_path, "[oslo_policy]\npolicy_file = policy.yaml\n")
    (tmp_path / "policy.yaml").write_text(POLICY)
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert values["PLACEMENT_POLICY_FILE"] == str(tmp_path / "policy.yaml")


def test_relative_policy_file_missing_is_one_line(tmp_path):
    layout(tmp_path, "[oslo_policy]\npolicy_file = custom.yaml\n")
    with pytest.raises(config.ConfigError, match=r"policy_file custom.yaml: not found"):
        config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})


def test_policy_yaml_beside_placement_conf_is_used_when_policy_file_is_unset(tmp_path):
    # openstack-helm and OpenStack-Ansible: /etc/placement/policy.yaml, no policy_file.
    layout(tmp_path, "")
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert values["PLACEMENT_POLICY_FILE"] is None
    (tmp_path / "policy.yaml").write_text(POLICY)
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert values["PLACEMENT_POLICY_FILE"] == str(tmp_path / "policy.yaml")


def test_policy_dirs_are_found_in_the_configuration_directory(tmp_path):
    layout(tmp_path, "")
    (tmp_path / "policy.d").mkdir()
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert values["PLACEMENT_POLICY_DIRS"] == [str(tmp_path / "policy.d")]
    layout(tmp_path, f"[oslo_policy]\npolicy_dirs = {tmp_path / 'elsewhere'}\n")
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    assert values["PLACEMENT_POLICY_DIRS"] == []


@pytest.mark.django_db
@pytest.mark.parametrize("where", ["policy_file", "beside", "policy_dirs"])
def test_a_policy_found_the_oslo_way_is_enforced(tmp_path, settings, where):
    if where == "policy_file":
        layout(tmp_path, "[oslo_policy]\npolicy_file = policy.yaml\n")
        (tmp_path / "policy.yaml").write_text(POLICY)
    elif where == "beside":
        layout(tmp_path, "")
        (tmp_path / "policy.yaml").write_text(POLICY)
    else:
        layout(tmp_path, "")
        (tmp_path / "policy.d").mkdir()
        (tmp_path / "policy.d" / "10-deny.yaml").write_text(POLICY)
    values, _ = config.load({"OS_PLACEMENT_CONFIG_DIR": str(tmp_path)})
    settings.PLACEMENT_POLICY_FILE = values["PLACEMENT_POLICY_FILE"]
    settings.PLACEMENT_POLICY_DIRS = values["PLACEMENT_POLICY_DIRS"]
    from tests.support.api import PlacementClient

    client = PlacementClient()
    assert client.get("/resource_providers").status_code == 403
    assert client.get("/resource_classes", mv="1.2").status_code == 200
