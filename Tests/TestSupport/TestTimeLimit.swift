internal import Testing

/// The rule that a test which starts a process or a server has a time limit, checked where
/// they start: `.timeLimit` on the test or its suite. Without one, a hang that slips past a
/// process's own timeout would stop the whole run and say nothing of where it is.
package enum TestTimeLimit {
    /// Records an issue when the current test has no time limit; `what` names what it starts.
    package static func require(starting what: String) {
        guard let test = Test.current, test.timeLimit == nil else { return }
        let message =
            "\(test.name) starts \(what) but has no time limit: give its suite .timeLimit(.minutes(…)), so that a "
            + "hang fails with a name"
        Issue.record(Comment(rawValue: message))
    }
}
