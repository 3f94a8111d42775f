package listings

import (
	"context"
	"errors"
	"reflect"
	"testing"
)

func TestMedian(t *testing.T) {
	cases := []struct {
		in   []int64
		want int64
	}{
		{nil, 0},
		{[]int64{5}, 5},
		{[]int64{3, 1, 2}, 2},
		{[]int64{2, 1}, 2},       // 1.5 rounds half up
		{[]int64{1, 4}, 3},       // 2.5 rounds half up
		{[]int64{100, 101}, 101}, // 100.5
		{[]int64{40, 10, 30, 20}, 25},
		{[]int64{1, 2, 3, 4}, 3}, // 2.5
		{[]int64{7, 7, 7, 7}, 7},
		{[]int64{999, 5678, 1234, 3000}, 2117},
	}
	for _, tc := range cases {
		in := append([]int64(nil), tc.in...)
		if got := Median(in); got != tc.want {
			t.Errorf("Median(%v) = %d, want %d", tc.in, got, tc.want)
		}
		if !reflect.DeepEqual(in, tc.in) && tc.in != nil {
			t.Errorf("Median reordered its input: %v", in)
		}
	}
}

func TestNicePrice(t *testing.T) {
	cases := []struct{ in, want int64 }{
		{-5, 100},
		{0, 100},
		{99, 100},
		{124, 100}, // below 20.00: nearest 50
		{125, 150}, // half up
		{1974, 1950},
		{1975, 2000},
		{2000, 2000}, // from 20.00: nearest 100
		{2049, 2000},
		{2050, 2100},
		{49949, 49900},
		{49950, 50000},
		{50249, 50000}, // from 500.00: nearest 500
		{50250, 50500},
		{123456, 123500},
	}
	for _, tc := range cases {
		if got := NicePrice(tc.in); got != tc.want {
			t.Errorf("NicePrice(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestScaleCentsAndConditionPercent(t *testing.T) {
	scale := []struct{ cents, pct, want int64 }{
		{1999, 75, 1499}, // 1499.25
		{1998, 75, 1499}, // 1498.5 rounds half up
		{1000, 130, 1300},
		{333, 50, 167}, // 166.5
		{0, 120, 0},
	}
	for _, tc := range scale {
		if got := ScaleCents(tc.cents, tc.pct); got != tc.want {
			t.Errorf("ScaleCents(%d, %d) = %d, want %d", tc.cents, tc.pct, got, tc.want)
		}
	}
	pct := map[string]int64{
		"new_with_tags": 130, "new_without_tags": 120, "like_new": 110, "good": 100,
		"fair": 75, "poor": 50, "": 100, "new": 100, "broken-ish": 100,
	}
	for cond, want := range pct {
		if got := ConditionPercent(cond); got != want {
			t.Errorf("ConditionPercent(%q) = %d, want %d", cond, got, want)
		}
	}
}

// fakeComps answers per condition ("" = any condition) and records the
// calls.
type fakeComps struct {
	byCond map[string][2][]int64
	err    map[string]error
	calls  []string
}

func (f *fakeComps) ComparablePrices(_ context.Context, slug, condition string) (sold, active []int64, err error) {
	f.calls = append(f.calls, slug+"/"+condition)
	if e := f.err[condition]; e != nil {
		return nil, nil, e
	}
	c := f.byCond[condition]
	return c[0], c[1], nil
}

func TestEstimate(t *testing.T) {
	type comps = map[string][2][]int64
	cases := []struct {
		name      string
		slug      string
		condition string
		comps     comps // nil: no Comparables at all
		want      int64
		basis     PriceBasis
		count     int
		calls     []string
	}{
		{
			name: "sold comparables in the condition, not scaled", slug: "smartphones", condition: "fair",
			comps: comps{"fair": {{30010, 19990, 25549}, {1, 2, 3}}},
			want:  25500, basis: BasisSold, count: 3, calls: []string{"smartphones/fair"},
		},
		{
			name: "too few sold: active ones", slug: "smartphones", condition: "fair",
			comps: comps{"fair": {{50000, 60000}, {1234, 5678, 999, 3000}}},
			want:  2100, basis: BasisActive, count: 4, calls: []string{"smartphones/fair"}, // median 2117
		},
		{
			name: "any condition, scaled", slug: "smartphones", condition: "fair",
			comps: comps{"fair": {{1}, {2}}, "": {{10000, 12000, 14000, 16000}, nil}},
			want:  9800, basis: BasisSoldAny, count: 4, calls: []string{"smartphones/fair", "smartphones/"}, // 13000 x 75% = 9750
		},
		{
			name: "any condition, active, scaled up", slug: "smartphones", condition: "new_with_tags",
			comps: comps{"": {{9000}, {5000, 7001, 6000}}},
			want:  7800, basis: BasisActiveAny, count: 3, calls: []string{"smartphones/new_with_tags", "smartphones/"},
		},
		{
			name: "no comparables: the prior, scaled", slug: "smartphones", condition: "like_new",
			comps: comps{}, want: 27500, basis: BasisPrior, calls: []string{"smartphones/like_new", "smartphones/"},
		},
		{
			name: "no Comparables at all", slug: "smartphones", condition: "poor",
			want: 12500, basis: BasisPrior,
		},
		{
			name: "unknown category: the default prior", slug: "no-such-slug", condition: "good",
			want: 2000, basis: BasisNoCategory,
		},
		{
			name: "non-positive comparables are ignored", slug: "smartphones", condition: "good",
			comps: comps{"good": {{0, -100, 1500, 1700}, {1000, 1100, 1200}}},
			want:  1100, basis: BasisActive, count: 3, calls: []string{"smartphones/good"},
		},
		{
			name: "never below the minimum", slug: "smartphones", condition: "good",
			comps: comps{"good": {{60, 70, 80}, nil}}, want: 100, basis: BasisSold, count: 3,
			calls: []string{"smartphones/good"},
		},
		{
			name: "never above the ceiling", slug: "smartphones", condition: "new_with_tags",
			comps: comps{"": {{5e12, 5e12, 5e12}, nil}}, want: MaxEstimateCents, basis: BasisSoldAny, count: 3,
			calls: []string{"smartphones/new_with_tags", "smartphones/"},
		},
		{
			name: "no condition: one look-up, no scaling", slug: "smartphones", condition: "",
			comps: comps{"": {{1}, nil}}, want: 25000, basis: BasisPrior, calls: []string{"smartphones/"},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var c Comparables
			fc := &fakeComps{byCond: tc.comps}
			if tc.comps != nil {
				c = fc
			}
			e, err := Estimate(context.Background(), DefaultTaxonomy(), c, tc.slug, tc.condition)
			if err != nil {
				t.Fatal(err)
			}
			if e.Cents != tc.want || e.Basis != tc.basis || e.Count != tc.count {
				t.Errorf("Estimate = %+v, want %d cents from %s over %d", e, tc.want, tc.basis, tc.count)
			}
			if tc.comps != nil && !reflect.DeepEqual(fc.calls, tc.calls) {
				t.Errorf("look-ups = %v, want %v", fc.calls, tc.calls)
			}
			cents, err := EstimatePrice(context.Background(), DefaultTaxonomy(), c, tc.slug, tc.condition)
			if err != nil || cents != tc.want {
				t.Errorf("EstimatePrice = %d, %v; want %d", cents, err, tc.want)
			}
		})
	}
}

func TestEstimatePriorWalksUp(t *testing.T) {
	tax, err := NewTaxonomy(validCats())
	if err != nil {
		t.Fatal(err)
	}
	// kitchen has no prior of its own: home's 3000 x 75% = 2250 -> 2300.
	got, err := EstimatePrice(context.Background(), tax, nil, "kitchen", "fair")
	if err != nil || got != 2300 {
		t.Fatalf("EstimatePrice(kitchen, fair) = %d, %v; want 2300", got, err)
	}
	// toys has none anywhere up: the default prior.
	e, err := Estimate(context.Background(), tax, nil, "toys", "good")
	if err != nil || e.Cents != DefaultPriorCents || e.Basis != BasisNoCategory {
		t.Fatalf("Estimate(toys) = %+v, %v", e, err)
	}
}

func TestEstimateComparablesError(t *testing.T) {
	boom := errors.New("database is down")
	for _, failOn := range []string{"fair", ""} {
		fc := &fakeComps{err: map[string]error{failOn: boom}}
		_, err := Estimate(context.Background(), DefaultTaxonomy(), fc, "smartphones", "fair")
		if !errors.Is(err, boom) {
			t.Errorf("failing on %q: err = %v, want the comparables error", failOn, err)
		}
	}
}
