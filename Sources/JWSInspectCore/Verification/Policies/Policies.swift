/// The checks one verifier runs, chosen once from its `VerificationOptions`: the one place
/// that decides which policies apply, in what order, and so which payload members are decoded.
///
/// Built once per `Verifier` (never per token) and shared by reference: a run walks an array
/// of `PolicyStep` values, each a static call, with no allocation and no existential.
final class Policies: Sendable {
    /// Run on the token itself, in order (`Run.execute`).
    let beforeNested: [PolicyStep]
    /// Run once the nested tokens are inspected, on them or the payload (`Run.finish(nested:)`).
    let afterNested: [PolicyStep]
    /// False with `--no-verify`: nothing cryptographic runs.
    let verifiesSignatures: Bool
    /// The payload members the chosen policies read, and the check time's, in order, once each.
    let payloadMembers: [String]

    /// Every policy, in report order: the checks jwsinspect knows.
    static let all: [any VerifierPolicy.Type] = [
        AlgorithmPolicy.self, CriticalHeaderPolicy.self, X5CPolicy.self, ChainPolicy.self, ChainPathPolicy.self,
        LeafOIDPolicy.self, IntermediateOIDPolicy.self, SignaturePolicy.self, BundleIDPolicy.self,
        AppAppleIDPolicy.self, EnvironmentPolicy.self, AccountTokenPolicy.self, DeviceVerificationPolicy.self,
        ActivePolicy.self,
    ]

    /// The policies `options` ask for.
    static func make(_ options: VerificationOptions) -> Policies {
        var before: [PolicyStep] = []
        if options.verifySignatures {
            before += [.unsigned, .algorithm, .critical, .x5c, .trustModel, .signature]
        }
        if options.expectedBundleId != nil { before.append(.bundleId) }
        if options.expectedAppAppleId != nil { before.append(.appAppleId) }
        if options.expectedEnvironment != nil { before.append(.environment) }
        var after: [PolicyStep] = []
        if options.expectedAccountToken != nil { after.append(.accountToken) }
        if options.deviceVerificationID != nil { after.append(.deviceVerification) }
        if options.requireActive { after.append(.active) }
        return Policies(beforeNested: before, afterNested: after, verifiesSignatures: options.verifySignatures)
    }

    private init(beforeNested: [PolicyStep], afterNested: [PolicyStep], verifiesSignatures: Bool) {
        self.beforeNested = beforeNested
        self.afterNested = afterNested
        self.verifiesSignatures = verifiesSignatures
        var members = Inspection.CheckTime.payloadMembers
        for policy in (beforeNested + afterNested).flatMap(\.policies) {
            for member in policy.payloadMembers where !members.contains(member) { members.append(member) }
        }
        self.payloadMembers = members
    }

    /// The policies chosen, in the order they run.
    var chosen: [any VerifierPolicy.Type] { (beforeNested + afterNested).flatMap(\.policies) }
}

/// One step of a run: a policy, or the trust model's validation, which decides several
/// checks from one path validation. A closed enum, so running one is a switch, not a call
/// through an existential.
enum PolicyStep: Sendable {
    case unsigned, algorithm, critical, x5c, trustModel, signature
    case bundleId, appAppleId, environment
    case accountToken, deviceVerification, active

    /// The policies the step decides.
    var policies: [any VerifierPolicy.Type] {
        switch self {
        case .unsigned, .signature: [SignaturePolicy.self]
        case .algorithm: [AlgorithmPolicy.self]
        case .critical: [CriticalHeaderPolicy.self]
        case .x5c: [X5CPolicy.self]
        case .trustModel: TrustModel.validationPolicies
        case .bundleId: [BundleIDPolicy.self]
        case .appAppleId: [AppAppleIDPolicy.self]
        case .environment: [EnvironmentPolicy.self]
        case .accountToken: [AccountTokenPolicy.self]
        case .deviceVerification: [DeviceVerificationPolicy.self]
        case .active: [ActivePolicy.self]
        }
    }

    func apply(to run: inout Run) {
        switch self {
        case .unsigned: SignaturePolicy.applyUnsigned(to: &run)
        case .algorithm: AlgorithmPolicy.apply(to: &run)
        case .critical: CriticalHeaderPolicy.apply(to: &run)
        case .x5c: X5CPolicy.apply(to: &run)
        case .trustModel: run.trust?.validate(&run)
        case .signature: SignaturePolicy.apply(to: &run)
        case .bundleId: BundleIDPolicy.apply(to: &run)
        case .appAppleId: AppAppleIDPolicy.apply(to: &run)
        case .environment: EnvironmentPolicy.apply(to: &run)
        case .accountToken: AccountTokenPolicy.apply(to: &run)
        case .deviceVerification: DeviceVerificationPolicy.apply(to: &run)
        case .active: ActivePolicy.apply(to: &run)
        }
    }
}

extension Check.Name {
    /// The policy that records checks of this name.
    var policy: any VerifierPolicy.Type {
        switch self {
        case .alg: AlgorithmPolicy.self
        case .crit: CriticalHeaderPolicy.self
        case .x5c: X5CPolicy.self
        case .chain: ChainPolicy.self
        case .chainPath: ChainPathPolicy.self
        case .leafOID: LeafOIDPolicy.self
        case .intermediateOID: IntermediateOIDPolicy.self
        case .signature: SignaturePolicy.self
        case .bundleId: BundleIDPolicy.self
        case .appAppleId: AppAppleIDPolicy.self
        case .environment: EnvironmentPolicy.self
        case .accountToken: AccountTokenPolicy.self
        case .deviceVerification: DeviceVerificationPolicy.self
        case .active: ActivePolicy.self
        }
    }
}
