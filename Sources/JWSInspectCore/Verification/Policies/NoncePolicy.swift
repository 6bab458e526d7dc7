internal import FoundationEssentials

/// `nonce`: the StoreKit kinds carry a one-time UUID.
struct NoncePolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("nonce", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard token.isDeveloperSigned, token.kind.isForStoreKit else { return .none }
        let value = token.claims["nonce"]
        var passed = false
        if case .string(let nonce)? = value, UUID(uuidString: nonce) != nil { passed = true }
        return Self.outcome(passed, ClaimDetail.nonce(value))
    }
}

extension Check.Name {
    package static let nonce = NoncePolicy.name
}
