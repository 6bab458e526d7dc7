/// One check, as a type: its name in the report with the status a token gets when it fails
/// (`Check.Name`), and the payload members it reads.
///
/// A policy is a caseless enum of static functions, declared in a file of its own under
/// `Policies/`, never an existential value in the hot path. Adding a check is adding one such
/// file (its `Check.Name`, its `apply(to:)` as a `PolicyStep`, its `CheckDetail`) and naming it
/// in `Policies.make(_:)`.
protocol VerifierPolicy: Sendable {
    /// The check's identifier and failure status, as reports and `--format json` show them.
    static var name: Check.Name { get }
    /// The payload members the check reads from `CompactJWS.DecodedSegment.essentials`: the
    /// decoded members (`PayloadKeys`) are the union of the chosen policies' declarations.
    /// (A notification's bodies are always decoded; checks that need more than the essentials
    /// on a rare path read the whole payload, `payload.object`, and declare nothing for it.)
    static var payloadMembers: [String] { get }
}

extension VerifierPolicy {
    /// The status an input gets when this check fails (the first failing check decides).
    static var failureStatus: Status { name.failureStatus }
    /// Whether the check is decided at the time of inspection, whatever the check time (its
    /// name says: `Check.Name.isTimeSensitive`).
    static var isTimeSensitive: Bool { name.isTimeSensitive }
}

/// One step of a run, as `Policies.make(_:)` lists them: most steps are a policy applying
/// itself; the trust model's validation is one step deciding several checks from one path
/// validation (`TrustModelValidation`).
protocol PolicyStep: Sendable {
    /// The policies whose checks the step records.
    static var policies: [any VerifierPolicy.Type] { get }
    /// Runs the step, recording its checks (and notes) on `run`.
    static func apply(to run: inout Run)
}

/// A backend expectation that a legacy receipt answers too, from its own fields: the same check
/// name, status and option, decided for every envelope by the policy that decides it for JWS.
/// `Policies.make` chooses them once; a receipt runs the chosen ones in the same order.
protocol ReceiptExpectation: VerifierPolicy {
    /// What the receipt says about the expectation: a check, a note when it cannot say, or
    /// nothing when the options do not ask for it.
    static func decide(receipt: ReceiptEnvelope, isXcode: Bool, options: VerificationOptions) -> ExpectationOutcome
}

/// One expectation's outcome on a receipt.
enum ExpectationOutcome {
    /// Compared: the check decides the verdict, and the verdict says "expectations met".
    case check(Check)
    /// Not comparable on this envelope: said, never failed.
    case note(String)
    case none
}

extension PolicyStep where Self: VerifierPolicy {
    static var policies: [any VerifierPolicy.Type] { [Self.self] }
}
