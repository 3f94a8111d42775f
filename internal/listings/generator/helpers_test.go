package generator

import (
	"context"
	"testing"

	"marketplace/internal/listings"
)

// fakeComps answers comparable prices by condition and records the
// look-ups.
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

func mustSlug(t *testing.T, tax *listings.Taxonomy, slug string) listings.Category {
	t.Helper()
	c, ok := tax.BySlug(slug)
	if !ok {
		t.Fatalf("no category %q", slug)
	}
	return c
}
