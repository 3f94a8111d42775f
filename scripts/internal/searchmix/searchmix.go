// Package searchmix draws search queries the way shoppers type them: one or
// two words from the seed's vocabulary, and a condition, a price ceiling and
// a sort at random. scripts/searchload and scripts/bench send the same mix.
package searchmix

import (
	"math/rand/v2"
	"net/url"
	"strconv"
)

// Words sellers use in titles (the seed's vocabulary and the taxonomy's
// common nouns), and filters shoppers add.
var (
	Words = []string{"vintage", "lamp", "black", "leather", "jacket", "camera", "lego", "guitar", "chair", "desk",
		"boots", "watch", "bowl", "mixer", "bike", "tent", "console", "vinyl", "record", "dress", "table", "blue",
		"red", "wooden", "silver", "mini", "portable", "classic", "sony", "nike", "fender", "pyrex", "speaker",
		"headphones", "book", "puzzle", "doll", "skillet", "kettle", "backpack", "sweater", "jeans", "ring"}
	Conditions = []string{"", "", "new", "like_new", "good", "fair"}
	Sorts      = []string{"", "", "newest", "price_asc", "price_desc"}
)

// Query is one query string (without the "?"): q, and perhaps condition,
// maxPrice and sort.
func Query(rng *rand.Rand) string {
	q := url.Values{}
	q.Set("q", Words[rng.IntN(len(Words))])
	if rng.IntN(2) == 0 {
		q.Set("q", q.Get("q")+" "+Words[rng.IntN(len(Words))])
	}
	if cond := Conditions[rng.IntN(len(Conditions))]; cond != "" {
		q.Set("condition", cond)
	}
	if rng.IntN(3) == 0 {
		q.Set("maxPrice", strconv.Itoa(1000*(1+rng.IntN(200))))
	}
	if s := Sorts[rng.IntN(len(Sorts))]; s != "" {
		q.Set("sort", s)
	}
	return q.Encode()
}
