//! paddock-hooks integration tests.
