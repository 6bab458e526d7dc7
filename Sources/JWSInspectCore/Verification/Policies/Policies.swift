internal import FoundationEssentials

/// The checks one verifier runs, chosen once from its `VerificationOptions`: the one place
/// that decides which policies apply, in what order, and so which payload members are decoded.
///
/// Built once per `Verifier` (never per token) and shared by reference: a run walks an array
/// of step types, each a static call through a witness table, with no allocation.
final class Policies: Sendable {
    /// Run on the token itself, in order (`Run.execute`).
    let beforeNested: [any PolicyStep.Type]
    /// Run once the nested tokens are inspected, on them or the payload (`Run.finish(nested:)`).
    let afterNested: [any PolicyStep.Type]
    /// False with `--no-verify`: nothing cryptographic runs.
    let verifiesSignatures: Bool
    /// The payload members the chosen policies read, and the check time's, in order, once each.
    let payloadMembers: [String]
    /// The chosen expectations a receipt answers, in the order they run on a JWS.
    let receiptExpectations: [any ReceiptExpectation.Type]
    /// Whether any backend expectation (bundle ID, environment, account token, …) was chosen:
    /// a valid JWS verdict then says "expectations met" (every expectation is a check or a note).
    /// Every expectation policy answers receipts too, so the chosen ones are `receiptExpectations`.
    var checksExpectations: Bool { !receiptExpectations.isEmpty }

    /// The policies `options` ask for: the builder, and the only list of checks there is.
    static func make(_ options: VerificationOptions) -> Policies {
        var before: [any PolicyStep.Type] = []
        if options.verifySignatures {
            before += [
                SignaturePolicy.Unsigned.self, AlgorithmPolicy.self, CriticalHeaderPolicy.self, X5CPolicy.self,
                DeveloperKeyPolicy.self, TrustModelValidation.self, SignaturePolicy.self,
            ]
            if options.revocation != nil { before.append(RevocationPolicy.self) }
            before += [
                // Developer-signed tokens only (each returns at once for App Store data).
                AudiencePolicy.self, IssuerPolicy.self, BundleClaimPolicy.self, IssuedAtPolicy.self, ExpiryPolicy.self,
                NoncePolicy.self,
                FeatureClaimsPolicy.self,
            ]
        }
        if options.expectedBundleId != nil { before.append(BundleIDPolicy.self) }
        if options.expectedAppAppleId != nil { before.append(AppAppleIDPolicy.self) }
        if options.expectedEnvironment != nil { before.append(EnvironmentPolicy.self) }
        var after: [any PolicyStep.Type] = []
        if options.expectedAccountToken != nil { after.append(AccountTokenPolicy.self) }
        if options.deviceVerificationID != nil { after.append(DeviceVerificationPolicy.self) }
        if options.requireActive { after.append(ActivePolicy.self) }
        return Policies(beforeNested: before, afterNested: after, verifiesSignatures: options.verifySignatures)
    }

    /// Every policy, in the order they run: what `make(_:)` chooses when every option asks for its check.
    static let all: [any VerifierPolicy.Type] = {
        var options = VerificationOptions()
        options.expectedBundleId = ""
        options.expectedAppAppleId = 0
        options.expectedEnvironment = .production
        options.expectedAccountToken = .init(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        options.deviceVerificationID = options.expectedAccountToken
        options.requireActive = true
        options.revocation = NoRequester()
        return make(options).chosen
    }()

    private init(
        beforeNested: [any PolicyStep.Type], afterNested: [any PolicyStep.Type], verifiesSignatures: Bool
    ) {
        self.beforeNested = beforeNested
        self.afterNested = afterNested
        self.verifiesSignatures = verifiesSignatures
        var members = Inspection.CheckTime.payloadMembers
        for policy in (beforeNested + afterNested).flatMap({ $0.policies }) {
            for member in policy.payloadMembers where !members.contains(member) { members.append(member) }
        }
        self.payloadMembers = members
        self.receiptExpectations = Self.chosen(beforeNested + afterNested).compactMap {
            $0 as? any ReceiptExpectation.Type
        }
    }

    /// Stands in for a requester in `all`, which is never run.
    private struct NoRequester: RevocationRequester {
        func status(of certificate: Certificate, issuedBy issuer: Certificate, now: Date) -> RevocationAnswer {
            .unavailable(why: "no requester")
        }
    }

    /// The policies chosen, in the order they run, each once.
    var chosen: [any VerifierPolicy.Type] { Self.chosen(beforeNested + afterNested) }

    /// The policies `steps` record, in order, each once.
    private static func chosen(_ steps: [any PolicyStep.Type]) -> [any VerifierPolicy.Type] {
        var chosen: [any VerifierPolicy.Type] = []
        for policy in steps.flatMap({ $0.policies }) where !chosen.contains(where: { $0.name == policy.name }) {
            chosen.append(policy)
        }
        return chosen
    }
}
