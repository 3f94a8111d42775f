package market

// ActorType says who acted: a human with a bearer token, an agent with a key,
// or the service itself.
type ActorType string

const (
	ActorUser   ActorType = "user"
	ActorAgent  ActorType = "agent"
	ActorAdmin  ActorType = "admin"
	ActorSystem ActorType = "system"
	// ActorPlatform is an agent platform's credential (ACP): KeyID holds
	// the platform's id.
	ActorPlatform ActorType = "platform"
)

// Actor is the authenticated caller of a service method.
type Actor struct {
	Type   ActorType
	UserID string // the human, or the agent's owner
	KeyID  string // set for agents (the key) and platforms (the platform)
	Admin  bool   // a human with role admin, by bearer token (never an agent key)
}

// ID is the identifier recorded for the actor in events and audit entries.
func (a Actor) ID() string {
	if a.Type == ActorAgent || a.Type == ActorPlatform {
		return a.KeyID
	}
	return a.UserID
}

// IsAgent reports whether the caller is an agent key.
func (a Actor) IsAgent() bool { return a.Type == ActorAgent }

// System is the actor for work the service does on its own.
var System = Actor{Type: ActorSystem}
