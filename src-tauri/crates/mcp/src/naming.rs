//! The names MCP tools get in the kernel: `mcp__<server>__<tool>`, in the 1-64 characters of
//! `[A-Za-z0-9_-]` that every vendor accepts.

/// Every MCP tool name starts with this.
pub const PREFIX: &str = "mcp__";

/// Vendors reject longer tool names.
pub const MAX_NAME_LEN: usize = 64;

/// The kernel name of `tool` on `server`. Characters outside `[A-Za-z0-9_-]` become `_`;
/// a name over 64 characters is cut and ends in a hash of the original names, so the same
/// server and tool always get the same name.
pub fn tool_name(server: &str, tool: &str) -> String {
    let full = format!("{PREFIX}{}__{}", sanitize(server), sanitize(tool));
    if full.len() <= MAX_NAME_LEN {
        return full;
    }
    let mut hash_input = Vec::with_capacity(server.len() + tool.len() + 1);
    hash_input.extend_from_slice(server.as_bytes());
    hash_input.push(0);
    hash_input.extend_from_slice(tool.as_bytes());
    let suffix = format!("_{:08x}", fold32(fnv1a64(&hash_input)));
    // `full` is ASCII after sanitizing, so any byte index is a char boundary.
    let keep = MAX_NAME_LEN - suffix.len();
    format!("{}{suffix}", &full[..keep])
}

fn sanitize(name: &str) -> String {
    if name.is_empty() {
        return "_".to_owned();
    }
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// FNV-1a: tiny, and stable across Rust versions (std's hasher is not).
fn fnv1a64(bytes: &[u8]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        hash ^= u64::from(b);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    hash
}

fn fold32(h: u64) -> u32 {
    // Truncation is the point: keep 32 well-mixed bits.
    ((h >> 32) ^ (h & 0xffff_ffff)) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(name: &str) -> bool {
        !name.is_empty()
            && name.len() <= MAX_NAME_LEN
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    }

    #[test]
    fn plain_names_are_kept() {
        assert_eq!(tool_name("everything", "echo"), "mcp__everything__echo");
        assert_eq!(
            tool_name("git-hub", "list_issues"),
            "mcp__git-hub__list_issues"
        );
    }

    #[test]
    fn other_characters_become_underscores() {
        assert_eq!(tool_name("my server", "fs.read"), "mcp__my_server__fs_read");
        assert_eq!(tool_name("ünï", "a/b"), "mcp___n___a_b");
        assert_eq!(tool_name("", ""), "mcp______");
        assert!(valid(&tool_name("ünï", "日本語")));
    }

    #[test]
    fn long_names_are_cut_with_a_stable_hash() {
        let server = "a-very-long-server-name-that-somebody-typed";
        let a = tool_name(server, "with_an_equally_long_tool_name_number_one");
        let b = tool_name(server, "with_an_equally_long_tool_name_number_two");
        assert!(valid(&a) && valid(&b), "{a} {b}");
        assert_eq!(a.len(), MAX_NAME_LEN);
        assert_ne!(a, b, "names that differ after the cut still differ");
        assert_eq!(
            a,
            tool_name(server, "with_an_equally_long_tool_name_number_one")
        );
        assert!(a.starts_with("mcp__a-very-long-server-name"));
        // Pinned so that a change of hash (which renames users' tools) is noticed.
        assert_eq!(&a[a.len() - 9..], "_501039e2", "{a}");
    }

    #[test]
    fn a_name_of_exactly_64_is_not_hashed() {
        let tool = "t".repeat(MAX_NAME_LEN - "mcp__s__".len());
        let name = tool_name("s", &tool);
        assert_eq!(name.len(), MAX_NAME_LEN);
        assert!(name.ends_with("tttt"));
    }
}
