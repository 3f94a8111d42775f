package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"marketplace/internal/httpapi/agentv1"
)

// CategoriesURI is the resource holding the category tree.
const CategoriesURI = "marketplace://categories"

// addResources adds the resources and prompts to srv: the category tree
// (the get_categories tool's answer, read as the caller) and the "sell
// this item" prompt.
func (s *Server) addResources(srv *mcp.Server, caller Caller) {
	var categories *agentv1.Tool
	for i := range s.Tools {
		if s.Tools[i].Name == "get_categories" {
			categories = &s.Tools[i]
		}
	}
	if categories != nil {
		srv.AddResource(&mcp.Resource{URI: CategoriesURI, Name: "categories", Title: "Category tree", MIMEType: "application/json",
			Description: "Every category (id, slug, name, path, default package weight and size, children), as get_categories answers it."},
			func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
				p, err := caller(ctx, nil)
				if err != nil {
					return nil, resourceError(err)
				}
				out, err := categories.Call(ctx, p, nil)
				if err != nil {
					return nil, resourceError(err)
				}
				raw, err := json.Marshal(out)
				if err != nil {
					return nil, err
				}
				return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{
					{URI: CategoriesURI, MIMEType: "application/json", Text: string(raw)}}}, nil
			})
	}
	srv.AddPrompt(&mcp.Prompt{Name: "sell_this_item", Title: "Sell this item",
		Description: "Walks you through listing an item for sale: photo upload URLs, uploading the photos, create_listing, then checking the listing.",
		Arguments: []*mcp.PromptArgument{
			{Name: "description", Title: "What the item is", Description: "The item in the owner's words: what it is, brand, condition, flaws.", Required: true},
			{Name: "price", Title: "Asking price", Description: "The asking price in US dollars (e.g. 45 or 45.00); leave it out to let the marketplace price it."},
		}}, sellThisItem)
}

// resourceError is a refusal as a JSON-RPC error whose message carries the
// contract's code.
func resourceError(err error) error {
	b := ErrorBody(err)
	return fmt.Errorf("%s: %s", b["code"], b["message"])
}

func sellThisItem(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	args := req.Params.Arguments
	desc := strings.TrimSpace(args["description"])
	if desc == "" {
		return nil, fmt.Errorf("the argument 'description' is required")
	}
	price := "Leave out price: the marketplace prices the item from its description, photos and recent sales " +
		"(call get_price_check first if you want to see what similar items sold for)."
	if p := strings.TrimSpace(args["price"]); p != "" {
		price = fmt.Sprintf("The owner asks %s (US dollars): pass it as price in integer cents (e.g. $45.00 is 4500). "+
			"If it looks far off, call get_price_check and tell the owner before listing.", p)
	}
	steps := []string{
		"Help me sell this item on the marketplace. My description: " + desc,
		"1. Call whoami to check the key may sell (scope sell or buy_sell); a buy-only key is refused with INSUFFICIENT_SCOPE, " +
			"and only the owner can give you another key.",
		"2. Decide how many photos you have (1 to 12) and call get_photo_upload_urls with that count.",
		"3. For each photo, HTTP PUT its raw JPEG or PNG bytes (at most 10 MiB) to one upload_url before expires_at. " +
			"If you cannot make HTTP requests, skip steps 2 and 3 and pass the photos as base64 strings in create_listing's photos (11 MiB in all).",
		"4. Call create_listing with brief_description (the description above, in plain words), photo_ids (in display order), " +
			"condition (new, like_new, good, fair or poor) and, if known, category_id (a slug from get_categories or the marketplace://categories resource). " + price,
		"5. The answer is the listing, its title and description written from your description and photos. If its status is 'processing', " +
			"call get_listing_detail with its listing_id until it is 'active'. Then show the owner the title, description, price and photos.",
		"6. If something needs correcting, call update_listing with only the fields to change. To take it off sale, archive_listing (cannot be undone).",
		"Refusals carry a code: VALIDATION_ERROR names the field to fix; PAYLOAD_TOO_LARGE means a photo is too big; " +
			"OWNER_NOT_VERIFIED means the owner must verify their identity first; " +
			"LISTING_RESTRICTED means the item may not be sold here. Never put contact details or payment instructions in the listing.",
	}
	return &mcp.GetPromptResult{Description: "List an item for sale",
		Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: strings.Join(steps, "\n")}}}}, nil
}
