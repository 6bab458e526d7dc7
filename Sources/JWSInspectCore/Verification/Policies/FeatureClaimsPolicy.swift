/// `claims`: the feature's own claims, as Apple requires them for the kind.
struct FeatureClaimsPolicy: VerifierPolicy, TokenStep {
    static let name = Check.Name("claims", failing: .invalidClaims)
    static let payloadMembers: [String] = []

    /// The claims each StoreKit kind requires, and their JSON kinds.
    static let required: [PayloadKind: [(claim: String, type: String)]] = [
        .promotionalOffer: [("productId", "string"), ("offerIdentifier", "string")],
        .introductoryOfferEligibility: [
            ("productId", "string"), ("allowIntroductoryOffer", "boolean"), ("transactionId", "string"),
        ],
        .advancedCommerceRequest: [("request", "string")],
    ]

    func decide(_ token: borrowing TokenSubject, _ report: borrowing Report) -> StepOutcome {
        guard token.isDeveloperSigned, let wanted = Self.required[token.kind] else { return .none }
        let claims = token.claims
        var problems: [String] = []
        for (claim, type) in wanted {
            switch (claims[claim], type) {
            case (.string?, "string"), (.bool?, "boolean"): continue
            case (nil, _): problems.append("no \(claim)")
            case (let value?, _): problems.append("\(claim) is \(value.kindDescription), expected a \(type)")
            }
        }
        if case .string(let transaction)? = claims["transactionId"], transaction.isEmpty {
            problems.append("transactionId is empty")
        }
        if token.kind == .advancedCommerceRequest, case .string(let request)? = claims["request"] {
            if let problem = DeveloperClaims.requestProblem(request) {
                problems.append("request \(problem)")
            } else if let object = DeveloperClaims.requestObject(request) {
                // What Apple's Advanced Commerce API accepts: operation, version, members.
                problems += AdvancedCommerceRequestModel.problems(object)
            }
        }
        return Self.outcome(problems.isEmpty, ClaimDetail.feature(kind: token.kind, problems: problems))
    }
}

extension Check.Name {
    package static let claims = FeatureClaimsPolicy.name
}
