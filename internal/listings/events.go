package listings

import (
	"maps"
	"slices"
)

// snapshot is what anyone may see of a listing, for its events (CONTRACT.md
// section 12): never the owner's floor price or cost basis.
func snapshot(l *Listing, extra map[string]any) map[string]any {
	s := map[string]any{
		"listing_id": l.ID, "seller_id": l.SellerID, "status": string(l.Status), "title": l.Title,
		"price": l.Price, "condition": l.Condition, "category_id": l.CategoryID, "brand": l.Brand,
		"accept_offers": l.AcceptOffers, "watchers_count": l.WatchersCount,
	}
	maps.Copy(s, extra)
	return s
}

// Snapshot is snapshot for the other areas' listing events (an order that
// puts the listing back on sale).
func Snapshot(l *Listing, extra map[string]any) map[string]any { return snapshot(l, extra) }

// ownerOnly are the fields whose changes only the seller hears of.
var ownerOnly = []string{"floorPrice", "costBasis"}

// publicChanges drops the owner-only fields from changes.
func publicChanges(changes []string) []string {
	return slices.DeleteFunc(slices.Clone(changes), func(c string) bool { return slices.Contains(ownerOnly, c) })
}
