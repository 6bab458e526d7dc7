internal import FoundationEssentials

/// What jwsinspect knows about Apple's certificates: marker OIDs, published
/// fingerprints and the embedded trusted roots.
package enum AppleCertificates {
    /// Marker extension of App Store receipt-signing leaf certificates.
    package static let leafMarkerOID = "1.2.840.113635.100.6.11.1"
    /// Marker extension of the Apple Worldwide Developer Relations intermediate CA.
    package static let intermediateMarkerOID = "1.2.840.113635.100.6.2.1"
    /// What the common names of a `jwsinspect mint ca` test CA say (`MintedCA`), so that the
    /// data it signs is labelled as test data.
    package static let mintedMarker = "(not Apple)"
    /// Apple's private OID arc; every extension under it is listed in a chain report.
    package static let appleOIDArc = "1.2.840.113635."

    /// Names of the Apple OIDs jwsinspect recognises.
    package static let oidNames: [String: String] = [
        leafMarkerOID: "App Store receipt signing (leaf marker)",
        intermediateMarkerOID: "Apple WWDR intermediate CA (intermediate marker)",
        "1.2.840.113635.100.5.1": "Apple certificate policy",
        "1.2.840.113635.100.6.27.3.2": "Apple WWDR sub-CA",
    ]

    /// A certificate jwsinspect recognises by its SHA-256 fingerprint.
    package struct Known: Sendable {
        package let name: String
        /// Whether it is one of the default trust anchors.
        package let isDefaultRoot: Bool
    }

    /// Apple's published SHA-256 fingerprints (lowercase hex of the DER bytes).
    ///
    /// Roots and WWDR G6 from Apple PKI (https://www.apple.com/certificateauthority/);
    /// leaves as seen in real App Store tokens (they rotate about every two years); the WWDR
    /// intermediates and leaves of legacy receipts as embedded in the real receipts of
    /// `Tests/Vectors/receipts/` (see its README).
    package static let known: [String: Known] = [
        "63343abfb89a6a03ebb57e9b3f5fa7be7c4f5c756f3017b3a8c488c3653e9179": Known(
            name: "Apple Root CA - G3", isDefaultRoot: true),
        "c2b9b042dd57830e7d117dac55ac8ae19407d38e41d88f3215bc3a890444a050": Known(
            name: "Apple Root CA - G2", isDefaultRoot: true),
        "b0b1730ecbc7ff4505142c49f1295e6eda6bcaed7e2c68c5be91b5a11001f024": Known(
            name: "Apple Inc. Root", isDefaultRoot: true),
        "bdd4ed6e74691f0c2bfd01be0296197af1379e0418e2d300efa9c3bef642ca30": Known(
            name: "Apple Worldwide Developer Relations CA - G6 (intermediate, not a trust anchor)", isDefaultRoot: false
        ),
        "64b302913f11ca1b6806093b76cade7f7b123be0c04924fda87f5f4e8647f051": Known(
            name: "Apple Worldwide Developer Relations CA, 2008 to 2016 (receipts; intermediate)", isDefaultRoot: false),
        "ce057691d730f89ca25e916f7335f4c8a15713dcd273a658c024023f8eb809c2": Known(
            name: "Apple Worldwide Developer Relations CA, 2013 to 2023 (receipts; intermediate)", isDefaultRoot: false),
        "0f570d7502373a2102e2106faaa8fa4844944a07ee676198484f4d6ce15bea47": Known(
            name: "Apple Worldwide Developer Relations CA - G7, 2022 to 2023 (receipts; intermediate)",
            isDefaultRoot: false),
        "53fd008278e5a595fe1e908ae9c5e5675f26243264a5a6438c023e3ce2870760": Known(
            name: "Apple Worldwide Developer Relations CA - G5, 2020 to 2030 (receipts; intermediate)",
            isDefaultRoot: false),
        "8e82c44d41989f8810a2a9fe4e5f78485a40f2d59743c98c7b540a63ed30c618": Known(
            name: "Mac App Store receipt-signing leaf, 2010-11-11 to 2015-11-11", isDefaultRoot: false),
        "fcfdfce9ac64e0fc3568ccff5d0c700c7be3ed4103dfd8b50f08408358fe937c": Known(
            name: "App Store receipt-signing leaf, 2015-11-13 to 2023-02-07", isDefaultRoot: false),
        "5eed9f4de7e2a24a811e309ff49f4952c75d2aa9ec92efae6efd442334ee1f68": Known(
            name: "App Store receipt-signing leaf, 2022-12-02 to 2023-11-17", isDefaultRoot: false),
        "be1d8364cec09e4468689f8cb3248b32837061306b1b351a349ca00b16a0cff7": Known(
            name: "App Store receipt-signing leaf, 2022-09-02 to 2024-10-01", isDefaultRoot: false),
        "f52e5e9e91a72e29a2a214806074a1164e9a1b968f445c27acd8c5692ef7c2e0": Known(
            name: "App Store receipt-signing leaf, 2024-07-24 to 2026-08-23", isDefaultRoot: false),
        "87da61ce27a91db54a38618657dffec761f095047c90f59c09d9fd40589b4890": Known(
            name: "App Store receipt-signing leaf, 2021-08-25 to 2023-09-24", isDefaultRoot: false),
        "c164fa11f69fe14bc632e97cdcb7603870bd089492ba286d59d39f76f4d94c55": Known(
            name: "App Store receipt-signing leaf, 2023-09-12 to 2025-10-11", isDefaultRoot: false),
        "4c381556c16121e605d1fc2eef6d0de4e072ed65964fe72f575f19711e84c417": Known(
            name: "App Store receipt-signing leaf, 2025-09-19 to 2027-10-13", isDefaultRoot: false),
    ]

    /// The DER bytes of the roots compiled into the binary (Apple Root CA G3, G2, Apple Inc.
    /// Root), decoded once and not parsed.
    package static let embeddedRootDERs: [[UInt8]] = EmbeddedAppleRoots.certificates.map { entry in
        // The base64 is wrapped in lines: the line breaks and indentation are skipped.
        guard let data = Data(base64Encoded: entry.base64, options: .ignoreUnknownCharacters) else {
            preconditionFailure("embedded root \(entry.fileName) is corrupt; run `make roots`")
        }
        return Array(data)
    }

    /// The roots compiled into the binary, all parsed (once).
    package static var embeddedRoots: [Certificate] { embeddedTrustStore.roots }

    /// The trust store of the embedded roots, the default one: each root is parsed when first
    /// needed, and a chain whose `x5c[2]` is one of them is validated against that one first.
    package static let embeddedTrustStore = TrustStore(lazyRootDERs: embeddedRootDERs)

    /// The embedded roots' DER bytes with the file names they came from.
    package static var embeddedRootFiles: [(fileName: String, derBytes: [UInt8])] {
        zip(EmbeddedAppleRoots.certificates, embeddedRootDERs).map { ($0.fileName, $1) }
    }
}
