package orders

import "testing"

func TestCompute(t *testing.T) {
	cases := []struct {
		name                   string
		item, shipping         int64
		fee, total, commission int64
	}{
		{"contract example with shipping", 10000, 800, 378, 11178, 300},
		{"contract example at the minimum", 1000, 0, 99, 1099, 30},
		{"minimum holds up to the break-even", 2828, 0, 99, 2927, 85}, // 3.5% of 2828 = 98.98 -> 99
		{"first amount above the minimum", 2843, 0, 100, 2943, 85},    // 99.505 -> 100 (half up)
		{"half a cent rounds up", 10, 0, 99, 109, 0},                  // 3% of 10 = 0.3 -> 0
		{"commission half up", 50, 0, 99, 149, 2},                     // 1.5 -> 2
		{"zero price", 0, 0, 99, 99, 0},
		{"large amounts stay exact", 1_000_000_000, 50_000, 35_001_750, 1_035_051_750, 30_000_000},
	}
	for _, c := range cases {
		f := Compute(DefaultFeeRates, c.item, c.shipping)
		if f.ServiceFee != c.fee || f.TotalCharged != c.total || f.Commission != c.commission {
			t.Errorf("%s: Compute(%d, %d) = fee %d total %d commission %d; want %d %d %d", c.name, c.item, c.shipping,
				f.ServiceFee, f.TotalCharged, f.Commission, c.fee, c.total, c.commission)
		}
		if f.TotalCharged != f.ItemPrice+f.ShippingCost+f.ServiceFee {
			t.Errorf("%s: total %d is not item + shipping + fee", c.name, f.TotalCharged)
		}
	}
}

// Admin-configured rates apply as given.
func TestComputeConfiguredRates(t *testing.T) {
	f := Compute(FeeRates{BuyerBps: 500, BuyerMin: 0, SellerBps: 1000}, 1999, 1)
	if f.ServiceFee != 100 || f.Commission != 200 || f.TotalCharged != 2100 {
		t.Fatalf("got %+v", f)
	}
}
