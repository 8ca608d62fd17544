from dataplane.natural_order import natural_key, natural_sorted


def test_digits_compare_as_numbers():
    assert natural_sorted(["h10", "h2", "h1", "leaf10:p1", "leaf2:p3", "leaf2:p10"]) == \
        ["h1", "h2", "h10", "leaf2:p3", "leaf2:p10", "leaf10:p1"]


def test_pairs_sort_by_their_name():
    assert [k for k, _ in natural_sorted({"h10": 1, "h9": 2}.items())] == ["h9", "h10"]
    assert natural_key("s1") < natural_key("spine1")
