//! Name resolution, done by the proxy (nothing inside the wall has DNS) and injectable, so
//! tests can map names to any address without a resolver.

use std::collections::HashMap;
use std::future::Future;
use std::io;
use std::net::IpAddr;
use std::pin::Pin;
use std::sync::Mutex;

/// A boxed future, as the caller-supplied hooks return them.
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// Resolves a normalized host name (lower-case ASCII, never an address literal) to its
/// addresses. It is called only after the policy let the name through: a name the policy
/// refuses is never looked up, so a denied name cannot carry data out through DNS.
pub trait Resolver: Send + Sync {
    fn resolve(&self, name: &str) -> BoxFuture<io::Result<Vec<IpAddr>>>;
}

/// The system's resolver (`getaddrinfo` on a blocking thread, through tokio).
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemResolver;

impl Resolver for SystemResolver {
    fn resolve(&self, name: &str) -> BoxFuture<io::Result<Vec<IpAddr>>> {
        let query = (name.to_owned(), 0u16);
        Box::pin(async move {
            let addrs = tokio::net::lookup_host(query).await?;
            Ok(addrs.map(|a| a.ip()).collect())
        })
    }
}

/// A fixed table of names (for tests and benchmarks); names not in it fail to resolve.
/// It remembers every name it was asked, so a test can show a name was never looked up.
#[derive(Debug, Default)]
pub struct StaticResolver {
    table: HashMap<String, Vec<IpAddr>>,
    asked: Mutex<Vec<String>>,
}

impl StaticResolver {
    pub fn new() -> Self {
        Self::default()
    }

    /// Maps `name` (normalized: lower case, no trailing dot) to `addrs`.
    pub fn with(mut self, name: &str, addrs: impl IntoIterator<Item = IpAddr>) -> Self {
        self.table
            .insert(name.to_owned(), addrs.into_iter().collect());
        self
    }

    /// The names looked up so far, in order.
    pub fn lookups(&self) -> Vec<String> {
        match self.asked.lock() {
            Ok(asked) => asked.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }
}

impl Resolver for StaticResolver {
    fn resolve(&self, name: &str) -> BoxFuture<io::Result<Vec<IpAddr>>> {
        match self.asked.lock() {
            Ok(mut asked) => asked.push(name.to_owned()),
            Err(poisoned) => poisoned.into_inner().push(name.to_owned()),
        }
        let found = self.table.get(name).cloned();
        let name = name.to_owned();
        Box::pin(async move {
            found.ok_or_else(|| {
                io::Error::new(io::ErrorKind::NotFound, format!("{name}: no such name"))
            })
        })
    }
}
