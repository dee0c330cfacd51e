"""Reads TensorBoard event files with libraries TurnLab's writer does not use.

Google's protobuf runtime (Debian's python3-protobuf) parses each Event, its message classes
built from a descriptor with TensorBoard's field numbers (tensorboard/compat/proto/event.proto
and summary.proto: Event, SessionLog, Summary, Summary.Value), and crcmod's CRC-32C (Debian's python3-crcmod) checks both masked CRCs of
every record, as TensorFlow's record reader does. Prints the events as JSON.

Usage: python3 tfevents_reader.py FILE
"""
import json
import math
import struct
import sys

import crcmod.predefined
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

CRC32C = crcmod.predefined.mkCrcFun('crc-32c')


def masked(data):
    crc = CRC32C(data)
    return (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def event_class():
    F = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name='tfevents_reader.proto', package='reader', syntax='proto3')
    value = proto.message_type.add(name='Value')
    value.oneof_decl.add(name='value')
    value.field.add(name='tag', number=1, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL)
    value.field.add(name='simple_value', number=2, type=F.TYPE_FLOAT, label=F.LABEL_OPTIONAL, oneof_index=0)
    session_log = proto.message_type.add(name='SessionLog')
    session_log.field.add(name='status', number=1, type=F.TYPE_INT32, label=F.LABEL_OPTIONAL)
    summary = proto.message_type.add(name='Summary')
    summary.field.add(name='value', number=1, type=F.TYPE_MESSAGE, type_name='.reader.Value', label=F.LABEL_REPEATED)
    event = proto.message_type.add(name='Event')
    event.oneof_decl.add(name='what')
    event.field.add(name='wall_time', number=1, type=F.TYPE_DOUBLE, label=F.LABEL_OPTIONAL)
    event.field.add(name='step', number=2, type=F.TYPE_INT64, label=F.LABEL_OPTIONAL)
    event.field.add(name='file_version', number=3, type=F.TYPE_STRING, label=F.LABEL_OPTIONAL, oneof_index=0)
    event.field.add(name='summary', number=5, type=F.TYPE_MESSAGE, type_name='.reader.Summary', label=F.LABEL_OPTIONAL, oneof_index=0)
    event.field.add(name='session_log', number=7, type=F.TYPE_MESSAGE, type_name='.reader.SessionLog', label=F.LABEL_OPTIONAL, oneof_index=0)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    descriptor = pool.FindMessageTypeByName('reader.Event')
    if hasattr(message_factory, 'GetMessageClass'):
        return message_factory.GetMessageClass(descriptor)
    return message_factory.MessageFactory(pool).GetPrototype(descriptor)


def read(path):
    Event = event_class()
    events = []
    with open(path, 'rb') as f:
        data = f.read()
    at = 0
    while at < len(data):
        header = data[at:at + 8]
        (length,) = struct.unpack('<Q', header)
        (header_crc,) = struct.unpack('<I', data[at + 8:at + 12])
        if header_crc != masked(header):
            raise ValueError(f'record at byte {at}: the length CRC does not match')
        body = data[at + 12:at + 12 + length]
        (body_crc,) = struct.unpack('<I', data[at + 12 + length:at + 16 + length])
        if len(body) != length or body_crc != masked(body):
            raise ValueError(f'record at byte {at}: the data CRC does not match')
        event = Event()
        event.ParseFromString(body)
        what = event.WhichOneof('what')
        item = {'wall_time': event.wall_time, 'step': event.step, 'what': what}
        if what == 'file_version':
            item['file_version'] = event.file_version
        elif what == 'session_log':
            # SessionLog.SessionStatus: 1 is START.
            item['session_status'] = event.session_log.status
        elif what == 'summary':
            values = []
            for value in event.summary.value:
                has = value.WhichOneof('value') == 'simple_value'
                number = value.simple_value
                values.append({'tag': value.tag, 'simple_value': None if not has else ('NaN' if math.isnan(number) else number)})
            item['values'] = values
        events.append(item)
        at += 16 + length
    return events


if __name__ == '__main__':
    json.dump(read(sys.argv[1]), sys.stdout)
