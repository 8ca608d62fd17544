"""The traffic of the load-balancing scenario: permutations between racks, all-to-all."""
from __future__ import annotations

import random

import pytest

from dataplane.net.loadbalance.workloads import all_to_all, permutation


@pytest.mark.parametrize("racks", [[[0, 1], [2, 3]], [list(range(r * 4, r * 4 + 4)) for r in range(32)],
                                   [[0, 1, 2], [3], [4, 5]]])
@pytest.mark.parametrize("seed", range(5))
def test_a_permutation_sends_and_receives_once_per_host_never_inside_a_rack(racks, seed):
    pairs = permutation(racks, random.Random(seed))
    rack_of = {h: i for i, r in enumerate(racks) for h in r}
    hosts = sorted(rack_of)
    assert sorted(a for a, _ in pairs) == hosts and sorted(b for _, b in pairs) == hosts
    assert all(rack_of[a] != rack_of[b] for a, b in pairs)


def test_a_permutation_is_drawn_from_its_seed():
    racks = [list(range(r * 4, r * 4 + 4)) for r in range(8)]
    assert permutation(racks, random.Random(3)) == permutation(racks, random.Random(3))
    assert permutation(racks, random.Random(3)) != permutation(racks, random.Random(4))


def test_no_permutation_between_racks_where_one_rack_holds_most_hosts():
    with pytest.raises(ValueError):
        permutation([[0, 1, 2], [3]], random.Random(1))


def test_all_to_all_is_every_ordered_pair():
    assert all_to_all(3) == [(0, 1), (0, 2), (1, 0), (1, 2), (2, 0), (2, 1)]
