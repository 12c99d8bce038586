"""Quantity parsing and rounding, as apimachinery's resource.Quantity (quantity.go, quantity_test.go)."""

import pytest

from kschedctl.api.quantity import QuantityError, int_value, milli_value


@pytest.mark.parametrize(
    "text,milli,value",
    [
        ("100m", 100, 1),  # Value() rounds up: 0.1 -> 1
        ("1", 1000, 1),
        ("1.5", 1500, 2),
        ("0.1", 100, 1),
        ("1n", 1, 1),  # MilliValue rounds up too
        ("2e3", 2_000_000, 2000),
        ("1Ki", 1_024_000, 1024),
        ("1.5Gi", 1_610_612_736_000, 1_610_612_736),
        ("200Mi", 209_715_200_000, 209_715_200),
        ("1k", 1_000_000, 1000),
        ("1M", 1_000_000_000, 1_000_000),
        (".5", 500, 1),
        ("5E-1", 500, 1),
        (3, 3000, 3),
    ],
    ids=lambda v: str(v),
)
def test_quantity_milli_and_value(text, milli, value):
    assert milli_value(text) == milli
    assert int_value(text) == value


@pytest.mark.parametrize("bad", ["1.2.3", "abc", "10Qi", "", "1 Gi", True])
def test_invalid_quantities_are_rejected(bad):
    with pytest.raises(QuantityError):
        milli_value(bad)
