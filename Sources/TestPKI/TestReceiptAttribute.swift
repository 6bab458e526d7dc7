internal import COpenSSL

/// One attribute of a legacy App Store receipt: `SEQUENCE { type INTEGER, version INTEGER, value OCTET STRING }`.
///
/// The receipt's content (and each in-app entry) is a `SET OF` these; the OCTET STRING
/// holds the DER of the value's own type (`TestReceiptValue`).
package struct TestReceiptAttribute: Sendable, Equatable {
    /// The attribute type: 0 receipt_type, 2 bundle_id, 17 in_app, 1701 quantity, ...
    package var type: Int
    /// The attribute version (Apple writes 1 for most fields; decoders ignore it).
    package var version: Int
    /// The value the OCTET STRING holds.
    package var value: TestReceiptValue

    /// Creates an attribute; see the properties.
    package init(type: Int, version: Int = 1, value: TestReceiptValue) {
        self.type = type
        self.version = version
        self.value = value
    }

    /// `SEQUENCE { INTEGER type, INTEGER version, OCTET STRING value.octets }` in DER,
    /// built with `i2d_ASN1_SEQUENCE_ANY`.
    package var der: [UInt8] {
        ReceiptASN1.sequence([
            ReceiptASN1.integer(Int64(type)),
            ReceiptASN1.integer(Int64(version)),
            ReceiptASN1.string(V_ASN1_OCTET_STRING, value.octets),
        ])
    }

    /// `SET OF` the attributes in DER (`i2d_ASN1_SET_ANY`, which sorts the elements as DER requires).
    package static func setDER(_ attributes: [TestReceiptAttribute]) -> [UInt8] {
        ReceiptASN1.set(attributes.map(\.der))
    }
}

/// The value of a receipt attribute, as its OCTET STRING holds it.
package enum TestReceiptValue: Sendable, Equatable {
    /// DER of a UTF8String (bundle ID, versions, product and transaction IDs, receipt type).
    case utf8String(String)
    /// DER of an IA5String (dates in RFC 3339; "" for an absent cancellation or expiry).
    case ia5String(String)
    /// DER of an INTEGER (quantity, web order line item ID, flags).
    case integer(Int64)
    /// The bytes themselves, not wrapped in any ASN.1 type (opaque value, SHA-1 hash), or
    /// any hand-picked bytes (e.g. a malformed value).
    case raw([UInt8])
    /// DER of a `SET OF` attributes (one in-app entry, type 17).
    case set([TestReceiptAttribute])

    /// The OCTET STRING's content for this value.
    package var octets: [UInt8] {
        switch self {
        case .utf8String(let text): ReceiptASN1.typeDER(ReceiptASN1.string(V_ASN1_UTF8STRING, Array(text.utf8)))
        case .ia5String(let text): ReceiptASN1.typeDER(ReceiptASN1.string(V_ASN1_IA5STRING, Array(text.utf8)))
        case .integer(let number): ReceiptASN1.typeDER(ReceiptASN1.integer(number))
        case .raw(let bytes): bytes
        case .set(let attributes): TestReceiptAttribute.setDER(attributes)
        }
    }
}

/// Building blocks over OpenSSL's ASN.1 API (`ASN1_TYPE`, `ASN1_STRING`, `ASN1_INTEGER`,
/// `i2d_ASN1_TYPE`, `i2d_ASN1_SEQUENCE_ANY`, `i2d_ASN1_SET_ANY`); nothing is encoded by hand.
///
/// Each `ASN1_TYPE` returned is owned by the caller, and taken over by `sequence`, `set` and `typeDER`.
enum ReceiptASN1 {
    /// A new `ASN1_TYPE` holding an `ASN1_STRING` of `tag` (`V_ASN1_UTF8STRING`, ...) with `bytes`.
    static func string(_ tag: Int32, _ bytes: [UInt8]) -> UnsafeMutablePointer<ASN1_TYPE> {
        let string = OpenSSL.unwrap(ASN1_STRING_type_new(tag), "ASN1_STRING_type_new(\(tag))")
        // A one-byte stand-in keeps the pointer non-NULL for an empty value (the length is 0).
        let data = bytes.isEmpty ? [0] : bytes
        OpenSSL.check(ASN1_STRING_set(string, data, Int32(bytes.count)), "ASN1_STRING_set")
        return wrap(tag, string)
    }

    /// A new `ASN1_TYPE` holding an INTEGER.
    static func integer(_ value: Int64) -> UnsafeMutablePointer<ASN1_TYPE> {
        let integer = OpenSSL.unwrap(ASN1_INTEGER_new(), "ASN1_INTEGER_new")
        OpenSSL.check(ASN1_INTEGER_set_int64(integer, value), "ASN1_INTEGER_set_int64")
        return wrap(V_ASN1_INTEGER, integer)
    }

    /// A new `ASN1_TYPE` of `tag` (`V_ASN1_SEQUENCE` or `V_ASN1_SET`) whose value is the
    /// complete encoding `der` (OpenSSL writes such values out as they are).
    static func encoded(_ tag: Int32, _ der: [UInt8]) -> UnsafeMutablePointer<ASN1_TYPE> {
        let string = OpenSSL.unwrap(ASN1_STRING_type_new(tag), "ASN1_STRING_type_new(\(tag))")
        OpenSSL.check(ASN1_STRING_set(string, der, Int32(der.count)), "ASN1_STRING_set")
        return wrap(tag, string)
    }

    /// DER of one value (`i2d_ASN1_TYPE`); frees `value`.
    static func typeDER(_ value: UnsafeMutablePointer<ASN1_TYPE>) -> [UInt8] {
        defer { ASN1_TYPE_free(value) }
        return OpenSSL.der("i2d_ASN1_TYPE") { i2d_ASN1_TYPE(value, $0) }
    }

    /// DER of `SEQUENCE { elements }` (`i2d_ASN1_SEQUENCE_ANY`); takes over the elements.
    static func sequence(_ elements: [UnsafeMutablePointer<ASN1_TYPE>]) -> [UInt8] {
        withStack(elements) { stack in OpenSSL.der("i2d_ASN1_SEQUENCE_ANY") { i2d_ASN1_SEQUENCE_ANY(stack, $0) } }
    }

    /// DER of `SET OF` the complete encodings `members` (`i2d_ASN1_SET_ANY`, sorted as DER requires).
    static func set(_ members: [[UInt8]]) -> [UInt8] {
        let elements = members.map { encoded(V_ASN1_SEQUENCE, $0) }
        return withStack(elements) { stack in OpenSSL.der("i2d_ASN1_SET_ANY") { i2d_ASN1_SET_ANY(stack, $0) } }
    }

    /// Calls `body` with a `STACK_OF(ASN1_TYPE)` owning `elements`, then frees stack and elements.
    private static func withStack(
        _ elements: [UnsafeMutablePointer<ASN1_TYPE>], _ body: (OpaquePointer) -> [UInt8]
    ) -> [UInt8] {
        let stack = OpenSSL.unwrap(COpenSSL_sk_ASN1_TYPE_new_null(), "sk_ASN1_TYPE_new_null")
        defer { COpenSSL_sk_ASN1_TYPE_pop_free(stack) }
        for element in elements {
            guard COpenSSL_sk_ASN1_TYPE_push(stack, element) > 0 else {
                ASN1_TYPE_free(element)
                OpenSSL.fail("sk_ASN1_TYPE_push")
            }
        }
        return body(stack)
    }

    /// A new `ASN1_TYPE` that owns `value` (an `ASN1_STRING` of the matching `tag`).
    private static func wrap(_ tag: Int32, _ value: UnsafeMutablePointer<ASN1_STRING>) -> UnsafeMutablePointer<
        ASN1_TYPE
    > {
        guard let type = ASN1_TYPE_new() else {
            ASN1_STRING_free(value)
            OpenSSL.fail("ASN1_TYPE_new")
        }
        ASN1_TYPE_set(type, tag, value)
        return type
    }
}
