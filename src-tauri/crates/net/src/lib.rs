//! The network fence (issue 34): which hosts a call may reach, and the proxy that is its
//! only way out.
//!
//! - `policy`: `allow` / `ask` / `deny` host rules; deny beats ask beats allow, no rule asks.
//! - `host`: one spelling per host (case, trailing dot, IDNA, IPv4 forms, mapped IPv6) and
//!   the authority and URL parsers the proxy uses, which refuse userinfo.
//! - `addr`: the addresses a name never grants (loopback and this machine's own, private,
//!   link-local, metadata, multicast, ...), judged by the IPv4 address an IPv6 form carries.
//! - `proxy`: the HTTP CONNECT / plain-HTTP proxy serving a call's connections.

pub mod addr;
pub mod host;
pub mod policy;
pub mod proxy;

pub use addr::{
    Embedded, Embedding, Forbidden, Judgement, OwnAddressCache, OwnAddresses, Reading,
    is_forbidden, judge, own_addresses,
};
pub use host::{
    Host, HostNameError, HttpTarget, normalize_host, parse_authority, parse_authority_or,
    parse_http_target,
};
pub use policy::{
    AddressCheck, Decision, HostRule, NetworkPolicy, NetworkRuleError, PolicyError, RuleList,
    RuleRef, Verdict,
};
pub use proxy::{
    AskAnswer, AskRequest, Call, CallLimits, ConnectionEvent, ConnectionSink, Decider, DenyAsks,
    NoEvents, Plain, Proxy, ProxyBuilder, ProxyConfig, ProxyStream, RefusedAddress, Resolver,
    StaticResolver, SystemResolver,
};
