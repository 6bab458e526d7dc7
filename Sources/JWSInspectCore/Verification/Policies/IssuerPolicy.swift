/// `iss`: the issuer ID is present.
struct IssuerPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("iss", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard token.isDeveloperSigned else { return .none }
        let value = token.claims["iss"]
        var passed = false
        if case .string(let issuer)? = value, !issuer.isEmpty { passed = true }
        return Self.outcome(passed, ClaimDetail.issuer(value))
    }
}

extension Check.Name {
    package static let iss = IssuerPolicy.name
}
