/// One check, as a type: its name in the report with the status a token gets when it fails
/// (`Check.Name`), and the payload members it reads.
///
/// A policy is declared in a file of its own under `Policies/`: its `Check.Name`, the value
/// that decides it (a `TokenStep` or an `ExpectationPolicy`, configured with what it needs from
/// the options), its `CheckDetail`. Adding a check is adding one such file and building its
/// value in `Policies.make(_:)`.
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

    /// The outcome that records this policy's check.
    static func outcome(_ passed: Bool, _ detail: String) -> StepOutcome {
        .check(Check(name, passed: passed, detail))
    }

    /// The outcome that records this policy's check, its detail put into words when read.
    static func outcome(_ passed: Bool, _ detail: some CheckDetail) -> StepOutcome {
        .check(Check(name, passed: passed, detail))
    }
}

/// One step of a JWS's run, as `Policies.make(_:)` lists them: a value configured once per
/// verifier from its options (`BundleIDPolicy(expected:)`), that reads the token (and what the
/// steps before it found) and returns what it decides. Most steps are a policy deciding its own
/// check; the trust model's validation is one step deciding several from one path validation
/// (`TrustModelValidation`).
protocol TokenStep: Sendable {
    /// The policies whose checks the step records.
    static var policies: [any VerifierPolicy.Type] { get }
    /// What the step decides on `token`, given the report so far.
    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome
}

extension TokenStep where Self: VerifierPolicy {
    static var policies: [any VerifierPolicy.Type] { [Self.self] }
}

/// A backend expectation (`--bundle-id`, `--environment`, `--require-active`, …): one value,
/// configured with what is expected, deciding it for every envelope, after the envelope's own
/// checks (and a notification's nested tokens): a JWS from its payload or the ones nested in
/// it, a legacy receipt from its own fields, a StoreKit 1 transaction receipt from what it says.
/// What an envelope cannot answer is noted, never failed; only a compared expectation makes a
/// verdict say "expectations met".
protocol ExpectationPolicy: VerifierPolicy {
    /// What a JWS says about the expectation.
    func decide(token: DecidedToken) -> StepOutcome
    /// What a receipt says about the expectation.
    func decide(receipt: ReceiptEnvelope, isXcode: Bool) -> StepOutcome
    /// What a StoreKit 1 transaction receipt says about the expectation.
    func decide(transactionReceipt: TransactionReceiptEnvelope) -> StepOutcome
    /// What a realtime response says about the expectation: nothing of its own (a note, by
    /// default); its nested tokens answer for themselves.
    func decide(realtimeResponse: RealtimeResponseEnvelope) -> StepOutcome
}

extension ExpectationPolicy {
    func decide(realtimeResponse: RealtimeResponseEnvelope) -> StepOutcome {
        .note("\(Self.name) not compared: a realtime response is your server's answer and names none of its own")
    }

    func decide(_ subject: ExpectationSubject) -> StepOutcome {
        switch subject {
        case .token(let token): decide(token: token)
        case .receipt(let receipt, let isXcode): decide(receipt: receipt, isXcode: isXcode)
        case .transactionReceipt(let receipt): decide(transactionReceipt: receipt)
        case .realtimeResponse(let response): decide(realtimeResponse: response)
        }
    }
}
