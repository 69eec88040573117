"""With ``limit`` and no shuffling, the engine works out only the trees it
needs: the work follows the limit, not the size of the cloud; shuffling
still draws from every tree."""
import pytest

from candidates.choices import Trees

URL = "/allocation_candidates?resources=VCPU:1&limit=3"


@pytest.fixture
def cloud(world):
    return [world.provider(f"cn{i:02}", inventory={"VCPU": 4}) for i in range(40)]


@pytest.fixture
def trees_worked_out(monkeypatch):
    seen = []
    original = Trees.tree

    def counting(self, root):
        seen.append(root)
        return original(self, root)

    monkeypatch.setattr(Trees, "tree", counting)
    return seen


def test_limit_works_out_only_the_trees_it_returns(api, cloud, trees_worked_out, settings):
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = False
    body = api.get(URL, mv="1.39").json()
    assert len(body["allocation_requests"]) == 3
    # The first three trees by id, and not one more.
    assert sorted(body["allocation_requests"][i]["allocations"].popitem()[0]
                  for i in range(3)) == sorted(rp.uuid for rp in cloud[:3])
    assert len(trees_worked_out) == 3


def test_randomized_limit_still_draws_from_every_tree(api, cloud, trees_worked_out, settings):
    settings.PLACEMENT_RANDOMIZE_ALLOCATION_CANDIDATES = True
    assert len(api.get(URL, mv="1.39").json()["allocation_requests"]) == 3
    assert len(trees_worked_out) == len(cloud)
