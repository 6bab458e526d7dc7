/// `intermediate-oid`: the intermediate carries Apple's WWDR marker extension
/// (`AppleCertificates.intermediateMarkerOID`).
///
/// Decided once per (leaf, intermediate) pair, by `AppStoreChain.markerChecks` when the cache first
/// sees it; for a receipt, from its chain's validation (`ReceiptSigner`).
enum IntermediateOIDPolicy: VerifierPolicy {
    static let name = Check.Name("intermediate-oid", failing: .invalidChain)
    static let payloadMembers: [String] = []

    static func check(_ intermediate: Certificate) -> Check {
        MarkerExtension.check(name, intermediate, oid: AppleCertificates.intermediateMarkerOID, role: "intermediate")
    }

    /// A receipt's intermediates, as the receipt chain's validation found them (`ReceiptChain`).
    static func receiptCheck(missing: Bool) -> Check {
        Check(
            name, passed: !missing,
            missing
                ? "no intermediate carries Apple's WWDR marker \(AppleCertificates.intermediateMarkerOID)"
                : "the intermediate carries \(AppleCertificates.intermediateMarkerOID) (Apple WWDR CA)")
    }
}

extension Check.Name {
    package static let intermediateOID = IntermediateOIDPolicy.name
}
