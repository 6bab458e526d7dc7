/// The fields Apple documents for each payload kind, in documentation order,
/// so that tables list them the way Apple's references do. Fields not listed are
/// still shown (after these) and flagged as unknown to this version.
package enum PayloadFields {
    package static func documented(for kind: PayloadKind) -> [String] {
        kind.schema.documentedFields
    }

    /// True for fields holding milliseconds since 1970 (every `…Date` field).
    package static func isTimestamp(_ field: String) -> Bool {
        // On UTF-8 bytes: String.hasSuffix compares with Unicode equivalence, which is slow
        // for something asked of every member of every payload.
        field.utf8.count >= 4 && field.utf8.reversed().starts(with: "etaD".utf8)
    }
}
