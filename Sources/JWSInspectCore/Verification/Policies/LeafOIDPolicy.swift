/// `leaf-oid`: the leaf carries Apple's App Store receipt-signing marker extension
/// (`AppleCertificates.leafMarkerOID`).
///
/// Decided once per (leaf, intermediate) pair, by `AppStoreChain.markerChecks` when the cache first
/// sees it; for a receipt, from its chain's validation (`ReceiptSigner`).
enum LeafOIDPolicy: VerifierPolicy {
    static let name = Check.Name("leaf-oid", failing: .invalidChain)
    static let payloadMembers: [String] = []

    static func check(_ leaf: Certificate) -> Check {
        MarkerExtension.check(name, leaf, oid: AppleCertificates.leafMarkerOID, role: "leaf")
    }

    /// A receipt's leaf, as the receipt chain's validation found it (`ReceiptChain`).
    static func receiptCheck(missing: Bool, signer: Certificate) -> Check {
        Check(
            name, passed: !missing,
            missing
                ? "the leaf \(signer.quotedName) lacks Apple's receipt-signing marker \(AppleCertificates.leafMarkerOID)"
                : "the leaf carries \(AppleCertificates.leafMarkerOID) (App Store receipt signing)")
    }
}

extension Check.Name {
    package static let leafOID = LeafOIDPolicy.name
}
