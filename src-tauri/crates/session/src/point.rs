//! A place a session can be rewound to (the timeline lists them, compactions mark the
//! ones whose conversation they summarized).

/// A place a session can be rewound to: before the prompt (turn 0) or before a turn of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RewindPoint {
    /// 1-based, in the order the session's prompts ran (rewound ones included).
    pub prompt: u32,
    pub turn: u32,
    /// Messages of the history kept when the conversation is rewound to here (`None`: a
    /// compaction has since summarized that part, so only the files can go back there).
    pub messages: Option<u32>,
    /// The workspace as it was here, when it was recorded (only turns that could change
    /// files are), and the folder recorded.
    pub checkpoint: Option<(String, String)>,
}
