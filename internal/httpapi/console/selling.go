package console

import (
	"net/http"
	"net/url"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/listings"
)

// sellingRoutes adds the pages of the seller's listings (create from photos, edit, archive), offers and messages.
func (c *Console) sellingRoutes(rt *httpapi.Router) {
	rt.Handle("GET", "/selling", httpapi.Public, c.member(c.sellingPage))
	rt.Handle("GET", "/selling/new", httpapi.Public, c.member(c.sellingNewPage))
	rt.Handle("POST", "/selling/new", httpapi.Public, c.upload(c.sellingCreate))
	rt.Handle("GET", "/selling/{id}", httpapi.Public, c.member(c.sellingListingPage))
	rt.Handle("POST", "/selling/{id}", httpapi.Public, c.member(c.sellingUpdate))
	rt.Handle("POST", "/selling/{id}/archive", httpapi.Public, c.member(c.sellingArchive))
	rt.Handle("GET", "/offers", httpapi.Public, c.member(c.offersPage))
	rt.Handle("POST", "/offers/{id}/{action}", httpapi.Public, c.member(c.offersAnswer))
	rt.Handle("GET", "/messages", httpapi.Public, c.member(c.messagesPage))
	rt.Handle("GET", "/messages/{threadId}", httpapi.Public, c.member(c.messagesThread))
	rt.Handle("POST", "/messages/{threadId}", httpapi.Public, c.member(c.messagesReply))
}

// sellingStatuses are the statuses a seller's listings can have, in the
// order the filter shows them, with the words the pages use.
var sellingStatuses = []option{
	{Value: string(listings.StatusActive), Label: "On sale"},
	{Value: string(listings.StatusPendingAI), Label: "Being written"},
	{Value: string(listings.StatusHeld), Label: "Waiting for review"},
	{Value: string(listings.StatusReserved), Label: "Reserved"},
	{Value: string(listings.StatusSold), Label: "Sold"},
	{Value: string(listings.StatusArchived), Label: "Archived"},
	{Value: string(listings.StatusRemoved), Label: "Removed"},
}

func sellingStatusLabel(status string) string {
	if status == "processing" { // the API's other name for pending_ai
		status = string(listings.StatusPendingAI)
	}
	return labelOf(sellingStatuses, status)
}

// sellingRow is one of the seller's listings in the list.
type sellingRow struct {
	*api.Listing
	StatusLabel string
}

// sellingLink is a filter or paging link; Current marks the page shown.
type sellingLink struct {
	Label, Href string
	Current     bool
}

type sellingData struct {
	Rows        []sellingRow
	Filters     []sellingLink
	StatusLabel string
	Page        pager
	Unverified  bool
}

// sellingPage lists the seller's listings as GET /listings/seller/me does,
// filtered by status and paged, and says what keeps them from selling.
func (c *Console) sellingPage(v *visit) error {
	ctx, q := v.r.Context(), v.r.URL.Query()
	limit, offset, err := httpapi.Page(v.r)
	if err != nil {
		return err
	}
	status := q.Get("status")
	p, err := c.Ops.ListingOps().Mine(ctx, v.caller(), status, limit, offset)
	if err != nil {
		return err
	}
	// The pages of the listings with status st (every one for "").
	links := func(st string) func(off int) string { return pageLinks("/selling", url.Values{"status": {st}}, limit) }
	d := sellingData{Page: pageOf(len(p.Listings), p.Total, limit, offset, links(status))}
	if status != "" {
		d.StatusLabel = sellingStatusLabel(status)
	}
	for _, l := range cardsOf(p) {
		d.Rows = append(d.Rows, sellingRow{Listing: l.Listing, StatusLabel: sellingStatusLabel(l.Status)})
	}
	d.Filters = append(d.Filters, sellingLink{Label: "All", Href: links("")(0), Current: status == ""})
	for _, s := range sellingStatuses {
		d.Filters = append(d.Filters, sellingLink{Label: s.Label, Href: links(s.Value)(0), Current: status == s.Value})
	}
	// The console lets an unverified person list; the page says what the
	// API refuses their agents and why.
	d.Unverified = !v.user.IdentityVerified
	return c.render(v, http.StatusOK, "selling", d)
}
