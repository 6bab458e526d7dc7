internal import FoundationEssentials

/// What one step of a run decided, returned to the report that assembles them (`Report.add`).
enum StepOutcome {
    /// Nothing to say (the step does not apply to this input).
    case none
    case check(Check)
    case note(String)
    /// Several checks and notes, each in order (one per transaction of a notification, …).
    case several(checks: [Check], notes: [String])
    /// What a trust model's validation found.
    case validation(TrustValidation)
    /// An ES256 verification left to the caller (`Verifier.inspectDeferringSignature`): its
    /// check is pending until `DeferredSignature.resolve` runs it.
    case deferredSignature(key: PublicKey, digest: [UInt8], signature: [UInt8], detailWhenPassed: String)
}

/// What a trust model's validation found: its checks and notes, whether the certificates are
/// valid now too, and what the steps after it read (the validated path, the cache's entry).
struct TrustValidation {
    var checks: [Check]
    var notes: [String] = []
    var validNow: Inspection.ValidityNow? = nil
    /// The path validated at the check time, leaf first, ending at the trusted root (nil when
    /// none validated), for the checks made on it (`revocation`).
    var path: [Certificate]? = nil
    /// What the cache knows about an App Store chain's (leaf, intermediate) pair.
    var chainEntry: VerificationCache.ChainEntry? = nil
}

/// One input's report while its steps run: assembled, in order, from what each step returns,
/// the same for every envelope. Steps read it (what the validation found, whether a check
/// failed) but only the run adds to it. Never copied (`~Copyable`).
struct Report: ~Copyable {
    private(set) var checks: [Check] = []
    private(set) var notes: [String] = []
    /// The certificates shown, in the order the envelope's trust model gives them.
    var chain: [CertificateSummary]
    private(set) var validNow: Inspection.ValidityNow?
    /// What the trust model's validation found, once it ran.
    private(set) var validatedPath: [Certificate]?
    private(set) var chainEntry: VerificationCache.ChainEntry?
    /// The verification left to the caller, when one was deferred.
    private(set) var deferredSignature: DeferredSignature?
    /// Whether a backend expectation was compared (it recorded a check rather than a note): a
    /// valid verdict then says "expectations met", for every envelope.
    private(set) var comparedExpectation = false

    init(chain: [CertificateSummary], note: String?) {
        self.chain = chain
        checks.reserveCapacity(8)  // an App Store token gets 7 checks: one allocation, not four
        if let note { notes.append(note) }
    }

    /// Whether a check recorded so far failed.
    var hasFailure: Bool { checks.contains(where: \.failed) }

    /// Adds what a step decided.
    mutating func add(_ outcome: StepOutcome) {
        switch outcome {
        case .none:
            break
        case .check(let check):
            checks.append(check)
        case .note(let note):
            notes.append(note)
        case .several(let checks, let notes):
            self.checks += checks
            self.notes += notes
        case .validation(let validation):
            checks += validation.checks
            notes += validation.notes
            validNow = validation.validNow
            validatedPath = validation.path
            chainEntry = validation.chainEntry
        case .deferredSignature(let key, let digest, let signature, let detail):
            deferredSignature = DeferredSignature(
                key: key, digest: digest, signature: signature, checkIndex: checks.count)
            checks.append(.pending(SignaturePolicy.name, detailWhenPassed: detail))
        }
    }

    /// Adds a note after the steps ran (a hint that depends on the nested tokens).
    mutating func note(_ text: String) {
        notes.append(text)
    }

    /// Adds what a backend expectation decided.
    mutating func addExpectation(_ outcome: StepOutcome) {
        switch outcome {
        case .check: comparedExpectation = true
        case .several(let checks, _) where !checks.isEmpty: comparedExpectation = true
        default: break
        }
        add(outcome)
    }
}
