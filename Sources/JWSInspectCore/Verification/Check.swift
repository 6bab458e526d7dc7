/// One check run on a JWS: what was checked, whether it passed, and the values involved.
///
/// A check is `pending` while its work is left to the caller (a deferred signature, see
/// `Verifier.inspectDeferringSignature`): it has then neither passed nor failed, and only
/// `DeferredSignature.resolve(_:)` turns it into a passed one, after the work has run.
///
/// Its detail is kept as the values involved (a `CheckDetail`) and put into words only when
/// read: a `--quiet` batch never formats a sentence it does not show.
package struct Check: Sendable, Equatable {
    /// A check's stable identifier, as it appears in JSON output, with the status a token gets
    /// when the check fails. Each policy declares its own, in its file (`BundleIDPolicy.name`),
    /// so a new check needs no list of names edited elsewhere.
    package struct Name: Hashable, Sendable, CustomStringConvertible {
        /// The identifier: `alg`, `chain-path`, `bundle-id`, ….
        package let rawValue: String
        /// The status an input gets when this check fails (the first failing check decides).
        package let failureStatus: Status
        /// True for a check decided at the time of inspection whatever the check time (an
        /// online check: `revocation`): its answer holds for the moment it was asked, and a
        /// valid verdict says so.
        package let isTimeSensitive: Bool

        init(_ rawValue: String, failing failureStatus: Status, timeSensitive: Bool = false) {
            self.rawValue = rawValue
            self.failureStatus = failureStatus
            self.isTimeSensitive = timeSensitive
        }

        package var description: String { rawValue }

        /// Names are equal when their identifiers are.
        package static func == (lhs: Name, rhs: Name) -> Bool { lhs.rawValue == rhs.rawValue }

        package func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
    }

    /// Passed, failed, or not run yet.
    enum State: UInt8, Sendable {
        case passed
        case failed
        case pending
    }

    package let name: Name
    private(set) var state: State
    private var text: Text

    /// Whether it passed; never true before its work has run.
    package var passed: Bool { state == .passed }
    /// Whether it failed; a pending check has not.
    package var failed: Bool { state == .failed }
    /// Whether its work is left to the caller and has not run yet.
    package var isPending: Bool { state == .pending }

    /// What was checked and the values seen (expected vs actual on failure), put into words now.
    package var detail: String {
        switch text {
        case .literal(let detail): detail
        case .values(let values): values.text
        case .chainValid(let anchorName, let time): ChainPolicy.Detail.valid(anchorName: anchorName, at: time).text
        case .pending: "pending: not verified yet (verified later, with other signatures)"
        }
    }

    package init(_ name: Name, passed: Bool, _ detail: String) {
        self.init(name, state: passed ? .passed : .failed, text: .literal(detail))
    }

    /// A check whose detail is rendered from `detail` when read.
    init(_ name: Name, passed: Bool, _ detail: some CheckDetail) {
        self.init(name, state: passed ? .passed : .failed, text: .values(detail))
    }

    /// The chain check every valid App Store token records, its values held inline: the one
    /// detail made for every token of a batch costs no allocation.
    static func chainValid(anchorName: String, at time: Inspection.CheckTime) -> Check {
        Check(ChainPolicy.name, state: .passed, text: .chainValid(anchorName: anchorName, at: time))
    }

    /// A check whose work is left to the caller; `resolved` is its detail once it has passed.
    static func pending(_ name: Name, detailWhenPassed resolved: String) -> Check {
        Check(name, state: .pending, text: .pending(detailWhenPassed: resolved))
    }

    /// Passes this pending check, in place: its work ran and succeeded. Any other check is left as is.
    mutating func pass() {
        guard case .pending(let detail) = text else { return }
        state = .passed
        text = .literal(detail)
    }

    private init(_ name: Name, state: State, text: Text) {
        self.name = name
        self.state = state
        self.text = text
    }

    /// A detail as given, the values of one rendered on demand, or the one a pending check gets.
    private enum Text: Sendable {
        case literal(String)
        case values(any CheckDetail)
        /// `ChainPolicy.Detail.valid`, inline.
        case chainValid(anchorName: String, at: Inspection.CheckTime)
        /// Not run yet; the detail it reads with once it has passed.
        case pending(detailWhenPassed: String)
    }

    /// Checks are equal when they read the same, however their details are held.
    package static func == (lhs: Check, rhs: Check) -> Bool {
        lhs.name == rhs.name && lhs.state == rhs.state && lhs.detail == rhs.detail
    }
}

/// The values a check's detail is made of, put into words only when the detail is read
/// (`Check.detail`). Each policy declares its own, beside the check that records it.
protocol CheckDetail: Sendable {
    /// The detail in words: what was checked and the values seen (expected vs actual on failure).
    var text: String { get }
}
