import ConfabModel
import ConfabStore

/// One thing a front end asks of a node: its parameters, its typed answer, and the method
/// name it travels under on the control socket (Protocol.md §13). The list of operations
/// is `OperationMethod`; the control socket's encoding, decoding and dispatch follow from
/// it, so adding an operation is one type here, one case there, one handler in every
/// `Messenger`, and its front ends, with the compiler pointing at each.
public protocol ConfabOperation: Codable, Sendable, Equatable {
    associatedtype Answer: Codable & Sendable
    static var method: OperationMethod { get }
    /// `try await messenger.perform(self)`: picks this operation's handler, so whoever holds
    /// an operation of unknown type (the control server) runs it without a switch.
    func perform(on messenger: some Messenger) async throws -> Answer
}

extension ConfabOperation {
    /// Equality across operations of unknown type (a decoded request).
    public func isEqual(to other: any ConfabOperation) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

/// An operation answered from the store alone: it changes nothing a peer or another front
/// end sees, and needs no node. A process attached to a node answers these from its own
/// open store (`AttachedMessenger`); the node answers them the same on its control socket.
public protocol ReadOperation: ConfabOperation {}

/// Every operation of the control protocol, by the name it travels under.
public enum OperationMethod: String, CaseIterable, Sendable {
    case status
    case peers
    case send
    case sendLines = "send_lines"
    case sendFile = "send_file"
    case acceptFile = "accept_file"
    case create
    case edit
    case unsend
    case react
    case changeMembers = "change_members"
    case leave
    case markRead = "mark_read"
    case setFlag = "set_flag"
    case delete
    case setTrust = "set_trust"
    case changed
    case typing
    case resync
    case conversations
    case conversation
    case history
    case message
    case lastOwnMessage = "last_own_message"
    case search
    case members
    case files
    case knownPeers = "known_peers"
    case saveFile = "save_file"
    case typingSetting = "typing_setting"
    case join
    case rooms
    case safetyNumber = "safety_number"
    case addPeer = "add_peer"
    case setName = "set_name"
    case doctor
    case devices
    case removeDevice = "remove_device"
    case linkOffer = "link_offer"
    case linkConfirm = "link_confirm"
    case linkCancel = "link_cancel"

    /// The operation this method names: the one place where a name meets its type.
    public var operation: any ConfabOperation.Type {
        switch self {
        case .status: Operations.Status.self
        case .peers: Operations.Peers.self
        case .send: Operations.Send.self
        case .sendLines: Operations.SendLines.self
        case .sendFile: Operations.SendFile.self
        case .acceptFile: Operations.AcceptFile.self
        case .create: Operations.Create.self
        case .edit: Operations.Edit.self
        case .unsend: Operations.Unsend.self
        case .react: Operations.React.self
        case .changeMembers: Operations.ChangeMembers.self
        case .leave: Operations.Leave.self
        case .markRead: Operations.MarkRead.self
        case .setFlag: Operations.SetFlag.self
        case .delete: Operations.Delete.self
        case .setTrust: Operations.SetTrust.self
        case .changed: Operations.Changed.self
        case .typing: Operations.Typing.self
        case .resync: Operations.Resync.self
        case .conversations: Operations.Conversations.self
        case .conversation: Operations.Conversation.self
        case .history: Operations.History.self
        case .message: Operations.Message.self
        case .lastOwnMessage: Operations.LastOwnMessage.self
        case .search: Operations.Search.self
        case .members: Operations.Members.self
        case .files: Operations.Files.self
        case .knownPeers: Operations.KnownPeers.self
        case .saveFile: Operations.SaveFile.self
        case .typingSetting: Operations.TypingSetting.self
        case .join: Operations.Join.self
        case .rooms: Operations.Rooms.self
        case .safetyNumber: Operations.SafetyNumberWith.self
        case .addPeer: Operations.AddPeer.self
        case .setName: Operations.SetName.self
        case .doctor: Operations.Doctor.self
        case .devices: Operations.Devices.self
        case .removeDevice: Operations.RemoveDevice.self
        case .linkOffer: Operations.OfferLink.self
        case .linkConfirm: Operations.ConfirmLink.self
        case .linkCancel: Operations.CancelLink.self
        }
    }
}

/// The operations, each a value with its parameters (Protocol.md §13 lists their wire form).
public enum Operations {}

/// The answer of an operation that answers nothing but success: `{}`.
public struct ControlEmpty: Codable, Sendable, Equatable {
    public init() {}
}
