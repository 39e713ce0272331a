//! Why a rewind, its undo or a compaction's change was refused.

/// Why a rewind, its undo or a compaction's change was refused (nothing changed).
#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error(
        "the files were not recorded {point} (nothing there could change them); rewind the \
         conversation only, or pick a point with a checkpoint"
    )]
    NotRecorded { point: String },
    #[error("this session has not been rewound: there is nothing to undo")]
    NothingToUndo,
    #[error(
        "a prompt ran after the last rewind, so it can no longer be undone; rewind to a point \
         instead"
    )]
    UndoTooLate,
    #[error(
        "that checkpoint is of the workspace {recorded}, but the workspace is now {now} (the \
         settings changed); Paddock puts files back only where they were recorded"
    )]
    OtherWorkspace { recorded: String, now: String },
    #[error(
        "the conversation up to {point} was compacted since; undo the compaction first, or \
         rewind the files only"
    )]
    Compacted { point: String },
    #[error("this session has no compaction to undo")]
    NoCompaction,
    #[error("the summary is empty")]
    EmptySummary,
    #[error("only the latest compaction's summary can be edited")]
    NotLatestCompaction,
    /// There was nothing a compaction could shorten.
    #[error(transparent)]
    NothingToCompact(paddock_core::compaction::CompactError),
}
