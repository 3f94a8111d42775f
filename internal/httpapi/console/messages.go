package console

import (
	"net/http"
	"net/url"

	"marketplace/internal/api"
	"marketplace/internal/httpapi"
	"marketplace/internal/market"
	"marketplace/internal/messaging"
)

type messagesData struct {
	Threads []sellingThreadRow
	Unread  int
	// Next is the link to the next page ("" on the last); Paged marks a
	// page after the first.
	Next  string
	Paged bool
}

// messagesPage lists the caller's threads, newest activity first, as GET
// /messages/threads does, with the unread count over all of them.
func (c *Console) messagesPage(v *visit) error {
	ctx, cursor := v.r.Context(), v.r.URL.Query().Get("cursor")
	p, err := c.Ops.MessageOps().Threads(ctx, v.caller(), cursor, 0)
	if err != nil {
		return err
	}
	unread, err := c.Ops.MessageOps().Unread(ctx, v.caller())
	if err != nil {
		return err
	}
	names := c.displayNames(v, "a member")
	d := messagesData{Unread: unread.UnreadCount, Paged: cursor != ""}
	for _, t := range p.Threads {
		other := t.BuyerID
		if t.Role == "buyer" {
			other = t.SellerID
		}
		d.Threads = append(d.Threads, sellingThreadRow{Thread: t, Other: names.of(other)})
	}
	if p.Next != "" {
		d.Next = "/messages?" + url.Values{"cursor": {p.Next}}.Encode()
	}
	return c.render(v, http.StatusOK, "messages", d)
}

// messageRow is a message with who wrote it, as the reader sees it.
type messageRow struct {
	Message api.Message
	From    string
	Mine    bool
}

type threadData struct {
	ID, ListingID, ListingTitle, Other string
	Seller                             bool
	Messages                           []messageRow
	Reply                              string
	Error                              *market.Error
}

func (c *Console) messagesThread(v *visit) error {
	return c.showThread(v, http.StatusOK, "", nil)
}

// showThread is one of the caller's threads with its messages, now read by
// the caller, as GET /messages/threads/{threadId} does; another person's
// thread is NOT_FOUND.
func (c *Console) showThread(v *visit, status int, reply string, refusal *market.Error) error {
	ctx := v.r.Context()
	conv, err := c.Ops.MessageOps().Thread(ctx, v.caller(), v.r.PathValue("threadId"))
	if err != nil {
		return err
	}
	t := conv.Thread
	names := c.displayNames(v, "a member")
	d := threadData{ID: t.ID, ListingID: t.ListingID, Seller: t.SellerID == v.user.ID, Reply: reply,
		Error: sellingRelabel(refusal), ListingTitle: c.offersTitle(v, t.ListingID, map[string]string{})}
	other := t.SellerID
	if d.Seller {
		other = t.BuyerID
	}
	d.Other = names.of(other)
	for _, m := range conv.Messages {
		row := messageRow{Message: m}
		switch {
		case m.SenderID == nil || m.MessageType == string(messaging.TypeSystem):
			row.From = "Marketplace"
		case *m.SenderID == v.user.ID:
			row.From, row.Mine = "You", true
		default:
			row.From = names.of(*m.SenderID)
		}
		d.Messages = append(d.Messages, row)
	}
	return c.render(v, status, "thread", d)
}

// messagesReply writes in the thread as POST
// /messages/threads/{threadId}/reply does, then goes back to the thread
// (or the seller's listing page the reply was sent from).
func (c *Console) messagesReply(v *visit) error {
	id, content := v.r.PathValue("threadId"), v.r.PostForm.Get("content")
	httpapi.Entity(v.r, "thread", id)
	_, err := c.Ops.MessageOps().Reply(v.r.Context(), v.caller(), id, messaging.Input{Content: content})
	next := safeNext(v.r.PostForm.Get("next"))
	if next == "/" {
		next = "/messages/" + id
	}
	return c.answer(v, err, next, func(v *visit, status int, refusal *market.Error) error {
		return c.showThread(v, status, content, refusal)
	})
}
