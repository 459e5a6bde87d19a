import { describe, expect, it } from 'vitest';
import { findOffListValue } from './off-list-value.js';

/** Wednesday 2026-11-25, local time. */
const TODAY = new Date(2026, 10, 25, 15, 30);
const CITIES = ['北京', '上海', '广州', 'Beijing', 'Shanghai'];

const find = (text: string) => findOffListValue(text.normalize('NFKC'), CITIES, TODAY)?.raw ?? null;

describe('findOffListValue', () => {
  it.each([
    ['帮我订南京的酒店，明天入住', '南京'],
    ['南京明天天气怎么样', '南京'],
    ['查一下南京的天气', '南京'],
    ['我想在苏州住两晚', '苏州'],
    ['下周去乌鲁木齐出差，帮我订个酒店', '乌鲁木齐'],
    ['南京市的酒店', '南京'],
    ['三亚的酒店', '三亚'],
    ['南京', '南京'],
    ['南京呢', '南京'],
    ['book a hotel in Nanjing for tomorrow', 'Nanjing'],
    ['what is the weather in New York', 'New York'],
    ['Nanjing weather tomorrow', 'Nanjing'],
    ['Nanjing', 'Nanjing'],
    ['what about Nanjing?', 'Nanjing'],
    ['帮我订南京的酒店，不对，苏州', '苏州'],
  ])('%s → %s', (text, raw) => {
    expect(find(text)).toBe(raw);
  });

  it.each([
    '帮我订酒店',
    '帮我订明天的酒店',
    '订个便宜的酒店',
    '今天天气怎么样',
    '住两晚',
    '谢谢',
    '好的',
    '确认',
    '取消',
    '明天',
    '后天吧',
    '我在京东买的东西坏了',
    'book a hotel for Friday',
    'book a hotel in December',
    'Thanks',
    'hotel in beijing please',
    '帮我订北京的酒店',
    '',
  ])('%j → nothing', (text) => {
    expect(find(text)).toBeNull();
  });
});
