package listings

import (
	"context"
	"fmt"
	"slices"

	"marketplace/internal/market"
)

// Price estimation works on integer cents only; every division rounds half
// up (market.RoundDiv), as CONTRACT.md section 3 asks of all money.

const (
	// MinEstimateCents is the lowest price an estimate gives.
	MinEstimateCents int64 = 100
	// MaxEstimateCents is the highest (the API's ceiling on a price).
	MaxEstimateCents int64 = 1_000_000_000
	// DefaultPriorCents is the prior when no category on the way up has one.
	DefaultPriorCents int64 = 2000
	// minComparables is how many comparable prices a median needs.
	minComparables = 3
)

// conditionPercent scales a price for condition, relative to "good".
var conditionPercent = map[string]int64{
	"new_with_tags":    130,
	"new_without_tags": 120,
	"like_new":         110,
	"good":             100,
	"fair":             75,
	"poor":             50,
}

// ConditionPercent is the percentage a price is scaled by for condition;
// 100 for "good" and for an unknown condition.
func ConditionPercent(condition string) int64 {
	if p, ok := conditionPercent[condition]; ok {
		return p
	}
	return 100
}

// PriceBasis says where an estimate came from.
type PriceBasis string

const (
	BasisSold       PriceBasis = "sold"          // median of sold comparables in the same condition
	BasisActive     PriceBasis = "active"        // median of active comparables in the same condition
	BasisSoldAny    PriceBasis = "sold_any"      // median of sold comparables in any condition, scaled
	BasisActiveAny  PriceBasis = "active_any"    // median of active comparables in any condition, scaled
	BasisPrior      PriceBasis = "prior"         // the category prior, scaled
	BasisNoCategory PriceBasis = "default_prior" // DefaultPriorCents, scaled
)

// PriceEstimate is an estimate with its working, for callers that show it.
type PriceEstimate struct {
	Cents  int64
	Basis  PriceBasis
	Median int64 // the median or prior before condition scaling and rounding
	Count  int   // how many comparables the median used
}

// EstimatePrice is the suggested price in cents of an item of the category
// and condition. comps may be nil (priors only).
func EstimatePrice(ctx context.Context, tax *Taxonomy, comps Comparables, slug, condition string) (int64, error) {
	e, err := Estimate(ctx, tax, comps, slug, condition)
	return e.Cents, err
}

// Estimate works the price out in this order:
//
//  1. comparables in the same category and condition: the median of the
//     sold ones when there are at least 3, else of the active ones when at
//     least 3; they are already in this condition, so no scaling;
//  2. comparables in the category in any condition (condition ""): the
//     same medians, scaled by ConditionPercent;
//  3. the category's prior (the nearest ancestor's when it has none, else
//     DefaultPriorCents), scaled by ConditionPercent.
//
// The result is rounded to a NicePrice and kept within MinEstimateCents
// and MaxEstimateCents. Non-positive comparable prices are ignored.
func Estimate(ctx context.Context, tax *Taxonomy, comps Comparables, slug, condition string) (PriceEstimate, error) {
	if comps != nil {
		sold, active, err := comps.ComparablePrices(ctx, slug, condition)
		if err != nil {
			return PriceEstimate{}, fmt.Errorf("comparable prices: %w", err)
		}
		if e, ok := fromComparables(sold, active, BasisSold, BasisActive, 100); ok {
			return e, nil
		}
		if condition != "" {
			sold, active, err = comps.ComparablePrices(ctx, slug, "")
			if err != nil {
				return PriceEstimate{}, fmt.Errorf("comparable prices: %w", err)
			}
			if e, ok := fromComparables(sold, active, BasisSoldAny, BasisActiveAny, ConditionPercent(condition)); ok {
				return e, nil
			}
		}
	}
	prior, basis := int64(0), BasisPrior
	if tax != nil {
		prior = tax.Prior(slug)
	}
	if prior <= 0 {
		prior, basis = DefaultPriorCents, BasisNoCategory
	}
	return PriceEstimate{Cents: finishPrice(prior, ConditionPercent(condition)), Basis: basis, Median: prior}, nil
}

func fromComparables(sold, active []int64, soldBasis, activeBasis PriceBasis, percent int64) (PriceEstimate, bool) {
	if s := positive(sold); len(s) >= minComparables {
		m := Median(s)
		return PriceEstimate{Cents: finishPrice(m, percent), Basis: soldBasis, Median: m, Count: len(s)}, true
	}
	if a := positive(active); len(a) >= minComparables {
		m := Median(a)
		return PriceEstimate{Cents: finishPrice(m, percent), Basis: activeBasis, Median: m, Count: len(a)}, true
	}
	return PriceEstimate{}, false
}

func positive(prices []int64) []int64 {
	out := make([]int64, 0, len(prices))
	for _, p := range prices {
		if p > 0 {
			out = append(out, p)
		}
	}
	return out
}

// Median of non-negative cents; with an even count, the mean of the two
// middle values rounded half up. 0 for no values. The input is not changed.
func Median(prices []int64) int64 {
	if len(prices) == 0 {
		return 0
	}
	s := slices.Clone(prices)
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return market.RoundDiv(s[n/2-1]+s[n/2], 2)
}

// ScaleCents is cents x percent / 100, rounded half up.
func ScaleCents(cents, percent int64) int64 {
	return market.RoundDiv(cents*percent, 100)
}

// NicePrice rounds cents, half up, to a price a seller would pick: to the
// nearest 50 cents below 20.00, the nearest whole unit (100) from 20.00 up
// to 500.00, and the nearest 5 units (500) from 500.00 up. Never below
// MinEstimateCents.
func NicePrice(cents int64) int64 {
	if cents < MinEstimateCents {
		return MinEstimateCents
	}
	step := int64(50)
	switch {
	case cents >= 50000:
		step = 500
	case cents >= 2000:
		step = 100
	}
	n := market.RoundDiv(cents, step) * step
	return max(n, MinEstimateCents)
}

func finishPrice(base, percent int64) int64 {
	if base > MaxEstimateCents {
		base = MaxEstimateCents // keeps cents x percent far from overflow
	}
	return min(NicePrice(ScaleCents(base, percent)), MaxEstimateCents)
}
