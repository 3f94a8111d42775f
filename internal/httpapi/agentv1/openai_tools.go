package agentv1

import (
	"net/http"
	"sync"

	"marketplace/internal/httpapi"
	"marketplace/internal/httpapi/apidoc"
)

// GET /v1/tools/openai is the tool catalogue in OpenAI's function-calling
// format, for agents whose framework has no MCP client: the same tools,
// names and input schemas /mcp lists. It is public: the catalogue is not
// secret, and an agent can read it before its owner has given it a key.

type openAIFunction struct {
	Name        string        `json:"name" required:"true" doc:"The tool's name, as MCP lists it."`
	Description string        `json:"description" required:"true"`
	Parameters  apidoc.Schema `json:"parameters" required:"true" doc:"The JSON Schema of the arguments (an object schema)."`
}

type openAITool struct {
	Type     string         `json:"type" required:"true" enum:"function"`
	Function openAIFunction `json:"function" required:"true"`
}

type openAITools struct {
	Tools []openAITool `json:"tools" required:"true" doc:"Every tool of the catalogue, sorted by name."`
}

// OpenAITools is the catalogue tools in OpenAI's format.
func OpenAITools(tools []Tool) []openAITool {
	out := make([]openAITool, len(tools))
	for i := range tools {
		t := &tools[i]
		out[i] = openAITool{Type: "function",
			Function: openAIFunction{Name: t.Name, Description: t.Description, Parameters: t.InputSchema()}}
	}
	return out
}

// RegisterToolsOpenAI adds GET /v1/tools/openai.
func (a *API) RegisterToolsOpenAI(rt *httpapi.Router) {
	rt = rt.In("openai_tools")
	var once sync.Once
	var list openAITools
	rt.Handle("GET", Prefix+"/tools/openai", httpapi.Public, func(w http.ResponseWriter, r *http.Request) error {
		once.Do(func() { list = openAITools{Tools: OpenAITools(a.Tools())} })
		return httpapi.OK(w, r, http.StatusOK, list)
	})
}
