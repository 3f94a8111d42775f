// Package listings holds listings and what makes them: categories, photos,
// search, watches and generation (the AI step that turns photos and a short
// brief into a complete listing). The generators themselves live in
// listings/generator, which builds on this package.
package listings

import "context"

// Dimensions are a package's outer size in inches.
type Dimensions struct {
	L, W, H float64
}

// Image is one photo handed to a generator (a size-limited thumbnail).
type Image struct {
	MIME string // image/jpeg, image/png or image/webp
	Data []byte
}

// Brief is what the seller gave. Fields the seller set are kept as given;
// the generator fills the rest.
type Brief struct {
	Description string  // the seller's short text; required
	Images      []Image // the listing's photos, as thumbnails
	Condition   string  // "" when the seller left it to the generator
	Price       *int64  // cents; nil when the generator is to estimate it
	Category    string  // category slug the seller chose, or ""
	// Taxonomy is the tree of the categories in use (the table's, as
	// admins left it); nil: the generator's own tree. A draft's category
	// comes from it.
	Taxonomy *Taxonomy
}

// Draft is a generator's output: a complete listing proposal.
type Draft struct {
	Title        string
	Description  string
	CategorySlug string // a leaf or inner slug of the taxonomy
	Condition    string // new_with_tags, new_without_tags, like_new, good, fair, poor
	Brand        string // "" when none was recognised
	Price        int64  // cents: the seller's when given, else the estimate
	PriceSource  string // "seller" or "ai"
	WeightOz     int
	Dimensions   Dimensions
	Generator    string // which generator wrote it ("builtin", "openai:<model>")
}

// Generator turns a brief into a draft.
type Generator interface {
	Generate(ctx context.Context, b Brief) (Draft, error)
}

// Comparables gives prices (cents) of similar listings in a category and
// condition, for price estimates: sold ones first, then active ones.
type Comparables interface {
	ComparablePrices(ctx context.Context, categorySlug, condition string) (sold, active []int64, err error)
}
